"""Where a test finds a pinned file of npm (`scripts.npm_files.PinnedFile`): the path an
environment variable names, else the cached copy; a test that needs it skips or fails."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from scripts.npm_files import PinnedFile

__all__ = ["pinned_path", "required_path"]


def pinned_path(variable: str, pinned: PinnedFile) -> Path | None:
    """The file `variable` names (even when it is missing), else the cached copy of
    `pinned` if there is one."""
    named = os.environ.get(variable)
    if named:
        return Path(named)
    cached = pinned.cached()
    return cached if cached.is_file() else None


def required_path(variable: str, pinned: PinnedFile, *, what: str, script: str) -> Path:
    """The file, or the test fails (`variable` set, file missing) or skips (not set, not
    fetched) saying how to fetch `what` with `python -m <script>`."""
    path = pinned_path(variable, pinned)
    if path is None:
        pytest.skip(
            f"{what} ({pinned.package} {pinned.version}) is not here: fetch it with "
            f"`uv run python -m {script}` (.ci/run does, and sets {variable})"
        )
    if not path.is_file():
        pytest.fail(f"{variable}={path} names no file: {what} is missing")
    return path
