"""Recordings as regression tests: replay one in a test and fail with the report when the
run no longer ends as recorded.

    def test_the_farewell_run_still_ends_the_same(tmp_path: Path) -> None:
        result = assert_replays(Path(__file__).parent / "recordings" / "farewell", tmp_path)
        assert "farewell" in result.review_bodies[0]
"""

from __future__ import annotations

import io
from pathlib import Path

from amelia.replay.player import ReplayResult, replay

__all__ = ["assert_replays"]


def assert_replays(recording: Path, workdir: Path) -> ReplayResult:
    """Replay `recording` in `workdir/replay` (offline) and return the result; raise
    `AssertionError` with the replay's report (where it diverged, what differs) when it
    does not end with the recorded commit trees, plan file and review bodies."""
    shown = io.StringIO()
    result = replay(recording, repo=workdir / "replay", stream=shown)
    if not result.same:
        raise AssertionError(f"{result.report()}\n\nWhat the replay printed:\n{shown.getvalue()}")
    return result
