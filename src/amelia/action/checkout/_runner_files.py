"""The runner's file commands, kept as amelia left them while agents run.

After a step, the runner reads the files named by `GITHUB_ENV`, `GITHUB_PATH`,
`GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and `GITHUB_STATE` (in a container action, under
`/github/file_commands`): a line `NODE_OPTIONS=--require …` or `BASH_ENV=…` in `GITHUB_ENV`,
or a directory in `GITHUB_PATH`, would run code of the agents' choosing in later steps of
the job, which hold secrets. The agents' tools run as a user that can write these files
(and can find them without their variables), so amelia saves them before every agent run
and puts them back byte for byte afterwards, once the agent's leftover processes are
stopped (`amelia.isolation.leftovers`); what amelia itself writes between agent runs (its
outputs, its summary) stays. Once the last agent has ended, the files amelia never writes
(`GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_STATE`) are put back as they were before the first.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["AMELIA_WRITES", "RUNNER_FILE_COMMANDS", "RunnerFiles"]

RUNNER_FILE_COMMANDS = (
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_STATE",
)
"""The variables that name a file the runner reads back after the step."""

AMELIA_WRITES = ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY")
"""The ones amelia itself writes to while it runs; the others it never changes."""


def _read(path: Path) -> bytes | None:
    """The regular file's bytes, or None when there is none (or it is something else)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read()


@dataclass(frozen=True)
class RunnerFiles:
    """The file commands' contents at one moment (None: the file did not exist)."""

    contents: Mapping[Path, bytes | None]
    amelias: frozenset[Path] = field(default=frozenset(), kw_only=True)
    """The files of `AMELIA_WRITES`."""

    @classmethod
    def of(
        cls, environ: Mapping[str, str], *, names: Sequence[str] = RUNNER_FILE_COMMANDS
    ) -> RunnerFiles:
        """The files `environ` names (among `names`), as they are now."""
        paths = {Path(environ[name]) for name in names if environ.get(name)}
        amelias = {Path(environ[name]) for name in AMELIA_WRITES if environ.get(name)}
        return cls({path: _read(path) for path in sorted(paths)}, amelias=frozenset(amelias))

    def take(self) -> RunnerFiles:
        """The same files, as they are now."""
        return RunnerFiles({path: _read(path) for path in self.contents}, amelias=self.amelias)

    def never_written_by_amelia(self) -> RunnerFiles:
        """These contents of the files amelia never writes itself (`GITHUB_ENV`, …)."""
        kept = {path: data for path, data in self.contents.items() if path not in self.amelias}
        return RunnerFiles(kept)

    def restore(self) -> list[Path]:
        """Put every file that changed back as it was, as a new file in its place (so no
        link an agent put there leads the write elsewhere); the files that had changed."""
        changed = []
        for path, content in self.contents.items():
            if _read(path) == content and not path.is_symlink():
                continue
            changed.append(path)
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path, ignore_errors=True)
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
            if content is None:
                continue
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
            descriptor = os.open(path, flags, 0o644)
            with os.fdopen(descriptor, "wb") as handle:
                handle.write(content)
        return changed
