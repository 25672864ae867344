"""What the setup runs, and how what it installs reaches the agents' `PATH`.

The setup is a command line (`pip install -e .[test]`) or the path of a script in the
repository (`.github/amelia/setup.sh`: one word holding a `/` or ending in `.sh`). A script
is read from the trusted commit (the default branch), never from the worktree, which holds
the branch the agents write on: a change an agent made to the script never runs as root.
Command lines run under `bash --noprofile --norc -eo pipefail -c`, as a workflow's `run:`
step with `shell: bash`; a script runs by its own `#!` line, else under the same bash.

The setup may add directories to the agents' `PATH` as a workflow step does: one per line
appended to the file named by `$GITHUB_PATH`, which for the setup is a file of amelia's
(`read_added_path`); `extend_path` puts them in front of `PATH`.
"""

from __future__ import annotations

import re
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import KW_ONLY, dataclass
from pathlib import Path

from amelia.errors import ConfigError, GitError
from amelia.git import Repo, run_git_bytes

__all__ = [
    "BASH",
    "SetupCommand",
    "command_line",
    "extend_path",
    "is_script_path",
    "one_line_of",
    "read_added_path",
    "resolve_setup",
    "without_own_virtualenv",
]

BASH = ("bash", "--noprofile", "--norc", "-eo", "pipefail")
"""How a command line runs: like a workflow's `run:` step with `shell: bash`."""
_SCRIPT = re.compile(r"^[A-Za-z0-9._/-]+$")


@dataclass(frozen=True)
class SetupCommand:
    """A resolved setup: what to start, and how to name it in the log and comments."""

    argv: tuple[str, ...]
    description: str
    _: KW_ONLY
    script: Path | None = None
    """The script copied out of the trusted commit, to remove after the run."""

    def cleanup(self) -> None:
        if self.script is not None:
            self.script.unlink(missing_ok=True)


def is_script_path(value: str) -> bool:
    """A setup value naming a script: one word with a `/` or ending in `.sh`."""
    word = value.strip()
    return bool(_SCRIPT.match(word)) and ("/" in word or word.endswith(".sh"))


def command_line(command: str) -> tuple[str, ...]:
    """The argv a command line runs as (see `BASH`)."""
    return (*BASH, "-c", command)


def _trusted_script(repo: Repo, trusted_ref: str, path: str) -> bytes:
    relative = path.strip().removeprefix("./")
    if relative.startswith("/") or ".." in relative.split("/"):
        raise ConfigError(f"setup script {path}: must be a path inside the repository")
    try:
        return run_git_bytes(["show", f"{trusted_ref}:{relative}"], repo)
    except GitError:
        raise ConfigError(
            f"setup script {path} is not in the default branch's commit; commit it there "
            "(it is never read from the branch the agents work on)"
        ) from None


def resolve_setup(value: str, *, repo: Repo, trusted_ref: str) -> SetupCommand:
    """The setup `value` names: a script from `trusted_ref`, or a command line.
    Raises `ConfigError` for a script missing from the trusted commit."""
    word = value.strip()
    if not is_script_path(word):
        return SetupCommand(argv=command_line(value), description=one_line_of(value))
    content = _trusted_script(repo, trusted_ref, word)
    descriptor, name = tempfile.mkstemp(prefix="amelia-setup-", suffix=".sh")
    with open(descriptor, "wb") as handle:
        handle.write(content)
    script = Path(name)
    script.chmod(0o700)
    argv: tuple[str, ...] = (str(script),) if content.startswith(b"#!") else (*BASH, str(script))
    return SetupCommand(argv=argv, description=word, script=script)


def one_line_of(command: str) -> str:
    lines = [line.strip() for line in command.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    return lines[0] + (" …" if len(lines) > 1 else "")


def read_added_path(path_file: Path) -> list[str]:
    """The directories the setup appended to its `$GITHUB_PATH` file, in order."""
    try:
        text = path_file.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    return [line.strip() for line in text.splitlines() if line.strip()]


def extend_path(environ: Mapping[str, str], added: Sequence[str]) -> dict[str, str]:
    """`environ` with `added` in front of `PATH` (the last added first, as a runner does)."""
    result = dict(environ)
    if not added:
        return result
    current = [part for part in result.get("PATH", "").split(":") if part]
    front = list(dict.fromkeys(reversed(added)))
    result["PATH"] = ":".join([*front, *(p for p in current if p not in front)])
    return result


def without_own_virtualenv(
    environ: Mapping[str, str], *, prefix: str | None = None
) -> dict[str, str]:
    """`environ` without amelia's own virtual environment (`prefix`, default: the one this
    interpreter runs in, if any): its `bin` off `PATH` and `VIRTUAL_ENV` blank, so a
    project's `python3` and `pip` are the system's, where its setup installs, not the
    environment amelia's own packages live in."""
    own = prefix if prefix is not None else (sys.prefix if sys.prefix != sys.base_prefix else "")
    result = dict(environ)
    if not own:
        return result
    own_bin = str(Path(own) / "bin")
    parts = [part for part in result.get("PATH", "").split(":") if part]
    result["PATH"] = ":".join(part for part in parts if part.rstrip("/") != own_bin)
    if result.get("VIRTUAL_ENV", "").rstrip("/") in (own.rstrip("/"), ""):
        result["VIRTUAL_ENV"] = ""
    return result
