"""git for building and inspecting the repositories tests use.

Plain `subprocess`, independent of the product's git layer under test. `IDENTITY` gives a
commit an author without touching any git configuration.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

IDENTITY = ("-c", "user.name=Test Author", "-c", "user.email=test@example.invalid")


def git(cwd: Path, *args: str) -> str:
    """Run `git *args` in `cwd` and return stdout; `CalledProcessError` on failure."""
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True
    ).stdout
