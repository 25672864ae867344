"""Fixtures every kind of test shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.testing.sample_repo import create_sample_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The sample project (a tiny Python package, two commits on `main`) as a git repo."""
    return create_sample_repo(tmp_path / "repo")
