"""The Action harness per test: local origin, workspace, GitHub and model servers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.testing.action_harness import ActionHarness


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[ActionHarness]:
    with ActionHarness(tmp_path / "action") as started:
        yield started
