"""A recorded `/amelia plan` run replayed on another day: the plan file is named by the
recorded run's date, so the replay makes the same file and the same commit tree. The recorded
runs are the engine in the test's process (`run_engine`), the CLI, PyGithub and the servers
as real as a subprocess's."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

import pytest

from amelia.action.engine import _ports
from amelia.agents import planfile
from amelia.replay.format import load_recording
from amelia.replay.player import replay
from amelia.testing.action_harness import ActionHarness, plan_script

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


class _ThreeDaysLater(datetime):
    """The clock of a replay made three days after the run."""

    @classmethod
    def now(cls, tz: tzinfo | None = None) -> _ThreeDaysLater:
        moved = datetime.now(tz) + timedelta(days=3)
        return cls.fromtimestamp(moved.timestamp(), tz)


def test_a_plan_replayed_days_later_names_its_file_by_the_recorded_day(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The architect's probe reads .git/config: origin's URL is the recorded one in a replay.
    script = plan_script()
    with ActionHarness(tmp_path / "action", script=script) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; say goodbye too.")
        planned = harness.run_engine("issue_comment", harness.comment_event(number, "/amelia plan"))
        assert planned.exit_code == 0, planned.stdout + planned.stderr
        run_id = planned.outputs["recording"]
    recording = harness.runner_temp / "amelia" / "runs" / run_id
    recorded = load_recording(recording).manifest
    day = datetime.fromisoformat(recorded.created_at).astimezone(UTC).date().isoformat()
    plan_path = recorded.outcome.plan_path
    assert plan_path is not None and f"/{day}-issue-{number}-" in plan_path
    assert recorded.outcome.plan is not None
    # Every clock of this process is three days ahead from here on.
    monkeypatch.setattr(_ports, "datetime", _ThreeDaysLater)
    monkeypatch.setattr(planfile, "datetime", _ThreeDaysLater)
    assert _ThreeDaysLater.now(UTC).date() != datetime.now(UTC).date()

    result = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert result.same, result.report()
    assert result.plan == recorded.outcome.plan
    assert [c.tree for c in result.commits] == [c.tree for c in recorded.outcome.commits]
    assert f"the same plan file {plan_path}" in result.report()


def test_a_dry_run_replays_with_the_writes_it_kept_to_itself(tmp_path: Path) -> None:
    with ActionHarness(tmp_path / "action", script=plan_script(probe=None)) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; say goodbye too.")
        event = harness.comment_event(number, "/amelia plan")
        planned = harness.run_engine("issue_comment", event, inputs={"dry_run": "true"})
        assert planned.exit_code == 0, planned.stdout + planned.stderr
        assert planned.outputs["conclusion"] == "dry_run"
        assert harness.github.comments(harness.repo, number) == []
        run_id = planned.outputs["recording"]
    recording = harness.runner_temp / "amelia" / "runs" / run_id
    recorded = [c.operation for c in load_recording(recording).calls if c.kind == "write"]
    assert "create_comment" in recorded

    result = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert result.same, result.report()
    assert result.exit_code == 0
    # The replay is a dry run too: its writes are the ones it saved, as the run's were.
    assert [w["action"] for w in result.writes] == recorded
    assert sorted(p.name for p in (tmp_path / "replay" / "dry-run").iterdir())
