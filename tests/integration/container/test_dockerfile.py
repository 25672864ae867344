"""The product Dockerfile is clean under hadolint (no engine needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

DOCKERFILE = Path(__file__).resolve().parents[3] / "Dockerfile"


def test_hadolint_finds_nothing() -> None:
    hadolint = Path(sys.executable).parent / "hadolint"
    result = subprocess.run(
        [str(hadolint), "--no-color", str(DOCKERFILE)], capture_output=True, text=True
    )
    assert (result.returncode, result.stdout + result.stderr) == (0, "")
