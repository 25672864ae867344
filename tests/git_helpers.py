"""git for building and inspecting the repositories tests use.

Plain `subprocess`, independent of the product's git layer under test. `IDENTITY` gives a
commit an author without touching any git configuration.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

IDENTITY = ("-c", "user.name=Test Author", "-c", "user.email=test@example.invalid")


def git(cwd: Path, *args: str) -> str:
    """Run `git *args` in `cwd` and return stdout; `CalledProcessError` on failure."""
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout


def init_repo(path: Path, files: Mapping[str, str] | None = None, *, message: str = "init") -> Path:
    """A repository at `path` on `main` whose one commit (by `IDENTITY`) holds what is in
    `path` already plus `files` (name: text); an empty commit when there is nothing."""
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (files or {}).items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "--all")
    git(path, *IDENTITY, "commit", "-q", "--allow-empty", "-m", message)
    return path
