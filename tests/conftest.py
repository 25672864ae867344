"""Fixtures every kind of test shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.testing.sample_repo import create_sample_repo
from tests.image_user import ImageUser, ensure_image_user, missing_reason


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The sample project (a tiny Python package, two commits on `main`) as a git repo."""
    return create_sample_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def image_user() -> ImageUser:
    """The image's agent user, `amelia-agent` (uid and gid 10001), made on this machine by
    the Dockerfile's own commands when it lacks it (see `tests.image_user`); skipped where
    amelia cannot run as root."""
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return ensure_image_user()
