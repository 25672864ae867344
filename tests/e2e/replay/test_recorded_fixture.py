"""A committed recording, replayed as a regression test (made by
`python -m scripts.make_replay_fixture`; run it again after changing what the agents send)."""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import pytest

from amelia.replay.player import replay
from amelia.testing.replay import assert_replays
from tests.image_user import ImageUser

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

RECORDING = Path(__file__).parents[2] / "fixtures" / "recordings" / "implement-farewell"


def test_the_recorded_implement_run_still_ends_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agents run as the recorded run's did (amelia's own user).
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)

    result = assert_replays(RECORDING, tmp_path)

    assert result.exit_code == 0
    (review,) = result.review_bodies
    assert "farewell mirrors greet" in review
    assert [c.branch for c in result.commits] == ["amelia/issue-1"]
    assert result.plan is not None and "Farewell Implementation Plan" in result.plan


def test_a_recording_that_no_longer_replays_fails_with_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    from amelia.agents import developer, prompts

    changed = prompts.DEVELOPER_INSTRUCTIONS + "\nBe brief."
    monkeypatch.setattr(developer, "DEVELOPER_INSTRUCTIONS", changed)
    with pytest.raises(AssertionError) as caught:
        assert_replays(RECORDING, tmp_path)
    assert "diverges at model request 1: developer, turn 1" in str(caught.value)
    assert "+system[2].text: Be brief." in str(caught.value)


def test_the_replaying_process_chooses_the_agent_user_over_the_recording(
    image_user: ImageUser, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Recorded with AMELIA_AGENT_USER=none; replayed as root where the image's user is asked for.
    monkeypatch.setenv("AMELIA_AGENT_USER", image_user.name)
    base = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
    base.chmod(0o755)
    try:
        replay(RECORDING, repo=base / "replay", stream=io.StringIO())
    finally:
        shutil.rmtree(base, ignore_errors=True)
    # Its agents' view differs (another HOME, git's context), so only who ran them is asserted.
    assert f"agents run as user {image_user.name}, uid {image_user.uid}" in capfd.readouterr().err
