"""The arguments every driver refuses before it starts anything: an empty prompt, a working
directory that is missing or is not a directory. Both are bad input (`DriverInputError`,
a `ValueError`), with the same words from every driver."""

from __future__ import annotations

from pathlib import Path

from amelia.errors import DriverInputError

__all__ = ["require_directory", "require_prompt"]


def require_prompt(prompt: str) -> None:
    """Refuse a prompt that is empty or only whitespace."""
    if not prompt or not prompt.strip():
        raise DriverInputError("The prompt is empty")


def require_directory(cwd: str) -> None:
    """Refuse a working directory that does not exist or is not a directory."""
    path = Path(cwd)
    if not path.exists():
        raise DriverInputError(f"The working directory does not exist: {cwd}")
    if not path.is_dir():
        raise DriverInputError(f"The working directory is not a directory: {cwd}")
