"""The Claude Code CLI's temporary directory: private to one CLI process, removed with it.

By default the CLI writes its temporary files (background task outputs, `fswatch-probe-*`
directories, the shell's working-directory file, what its tools put in `$TMPDIR`) under
`/tmp/claude-<uid>/`, and never removes them: every later process of the same uid (the
next run's agent, steered by another repository or pull request) could read them. amelia
hands each CLI process `CLAUDE_CODE_TMPDIR` (and `TMPDIR`), a directory that process's
user owns, mode 0700, in amelia's per-process scratch directory, removed with it.

The CLI uses `<CLAUDE_CODE_TMPDIR>/claude-<uid>` as its children's `TMPDIR` only while that
path is at most `SOCKET_DIRECTORY_LIMIT` bytes (AF_UNIX socket paths must fit below it);
longer, it falls back to the shared `/tmp/claude-<uid>`. So the scratch directory goes to
the system's temporary directory when the path fits there, else to `/tmp`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from loguru import logger

from amelia.isolation.agent_user import AgentUser

__all__ = ["SOCKET_DIRECTORY_LIMIT", "TMPDIR_NAME", "cli_scratch", "private_tmpdir"]

SOCKET_DIRECTORY_LIMIT = 44
"""The longest `<CLAUDE_CODE_TMPDIR>/claude-<uid>` (bytes) the CLI gives its children."""
TMPDIR_NAME = "t"
"""The CLI's temporary directory inside the scratch directory (short on purpose)."""
_PREFIX = "amelia-cli-"
_RANDOM_CHARACTERS = 8
"""What `tempfile.mkdtemp` adds to the prefix."""


_SHORT_PARENT = Path("/tmp")  # noqa: S108 - a parent only; the directory is mkdtemp's
"""Where the scratch directory goes when the system's temporary directory is too long."""


def _per_uid_length(parent: Path, uid: int) -> int:
    scratch = parent / (_PREFIX + "x" * _RANDOM_CHARACTERS)
    return len(os.fsencode(scratch / TMPDIR_NAME / f"claude-{uid}"))


def cli_scratch(uid: int) -> tempfile.TemporaryDirectory[str]:
    """amelia's scratch directory for one CLI process run as `uid` (its launcher, MCP
    configuration and temporary directory), short enough for `private_tmpdir`."""
    parent = Path(tempfile.gettempdir())
    if _per_uid_length(parent, uid) > SOCKET_DIRECTORY_LIMIT:
        if _SHORT_PARENT.is_dir() and _per_uid_length(_SHORT_PARENT, uid) <= SOCKET_DIRECTORY_LIMIT:
            parent = _SHORT_PARENT
        else:
            logger.warning(
                "the temporary directory {} is too long for Claude Code's children: their "
                "TMPDIR falls back to a shared one",
                parent,
            )
    return tempfile.TemporaryDirectory(prefix=_PREFIX, dir=parent, ignore_cleanup_errors=True)


def private_tmpdir(scratch: Path, *, owner: AgentUser | None) -> Path:
    """A fresh directory in `scratch` (amelia's) for the CLI's temporary files, mode 0700
    and the CLI's user's (`owner`; None: amelia's own). With an owner, `scratch` becomes
    enterable (not listable) so that user reaches it by its name."""
    path = scratch / TMPDIR_NAME
    path.mkdir(mode=0o700)
    path.chmod(0o700)
    if owner is not None:
        owner.own(path)
        scratch.chmod(0o711)
    return path
