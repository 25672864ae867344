"""A committed recording, replayed as a regression test (made by
`python -m scripts.make_replay_fixture`; run it again after changing what the agents send)."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.testing.replay import assert_replays

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

RECORDING = Path(__file__).parents[2] / "fixtures" / "recordings" / "implement-farewell"


def test_the_recorded_implement_run_still_ends_the_same(tmp_path: Path) -> None:
    result = assert_replays(RECORDING, tmp_path)

    assert result.exit_code == 0
    (review,) = result.review_bodies
    assert "farewell mirrors greet" in review
    assert [c.branch for c in result.commits] == ["amelia/issue-1"]
    assert result.plan is not None and "Farewell Implementation Plan" in result.plan


def test_a_recording_that_no_longer_replays_fails_with_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from amelia.agents import developer, prompts

    changed = prompts.DEVELOPER_INSTRUCTIONS + "\nBe brief."
    monkeypatch.setattr(developer, "DEVELOPER_INSTRUCTIONS", changed)
    with pytest.raises(AssertionError) as caught:
        assert_replays(RECORDING, tmp_path)
    assert "diverges at model request 1: developer, turn 1" in str(caught.value)
    assert "+system[2].text: Be brief." in str(caught.value)
