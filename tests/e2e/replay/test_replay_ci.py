"""An implement run gated by the repository's CI replays offline: the replay's commits are
new ones (other dates, so other hashes), and the recorded run asked GitHub about its own;
the replay's GitHub reads and answers stand a replayed commit for the recorded one with the
same tree, so the failing round, the developer's second round and the passing CI come out
as they did."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from amelia.replay.player import replay
from amelia.testing.action_harness import ActionHarness
from tests.e2e.action.test_repository_ci_action import FIXED, Model, failing_then_passing

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]


def test_an_implement_run_gated_by_the_repositorys_ci_replays_with_the_same_outcome(
    tmp_path: Path,
) -> None:
    root = tmp_path / "action"
    with ActionHarness(root, script=Model(root / "workspace")) as harness:
        number = failing_then_passing(harness)
        event = harness.comment_event(number, "/amelia implement")
        result = harness.run_engine("issue_comment", event, inputs={"review_event": "AUTO"})
        assert result.exit_code == 0, result.stdout + result.stderr
        branch = f"amelia/issue-{number}"
        assert harness.origin_file(branch, "greeter/farewell.py") == FIXED
    recording = harness.runner_temp / "amelia" / "runs" / result.outputs["recording"]

    replayed = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert replayed.same, replayed.report()
    assert [w["action"] for w in replayed.writes].count("dispatch_workflow") == 2
