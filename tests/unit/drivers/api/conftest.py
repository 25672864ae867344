"""Fixtures for the API driver: a working directory and an isolated home directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    (root / "hello.txt").write_text("hello world\n")
    return root


@pytest.fixture(autouse=True)
def api_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where a driver made without a home keeps its transcripts and sessions: ~/.amelia."""
    user = tmp_path / "user"
    monkeypatch.setenv("HOME", str(user))
    return user / ".amelia"
