"""The engine's small decisions: command overrides, plan file reuse, commit titles, outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.action.engine._routing import command_override
from amelia.action.modes import MODE_MODULES, Mode, load_mode
from amelia.action.modes._commits import co_author
from amelia.action.modes.plan import commit_title
from amelia.config import AmeliaVariables, RunnerContext
from amelia.errors import ConfigError
from amelia.github.events import ScheduleEvent, parse_event
from amelia.pipeline.planfile import existing_plan
from amelia.testing.action_harness import parse_outputs

SCHEDULE = ScheduleEvent(schedule="17 3 * * *")


def _variables(environ: dict[str, str]) -> AmeliaVariables:
    return AmeliaVariables.from_environ(environ)


def test_no_override_without_the_variables() -> None:
    assert command_override(_variables({}), SCHEDULE, RunnerContext()) is None


def test_matrix_override_plans_the_issue_for_the_actor() -> None:
    runner = RunnerContext(actor="octocat")
    env = {"AMELIA_COMMAND": "Plan", "AMELIA_ISSUE_NUMBER": "12"}
    command = command_override(_variables(env), SCHEDULE, runner)
    assert command is not None
    assert (command.kind, command.number, command.requested_by) == ("plan", 12, "octocat")


def test_issue_number_alone_means_plan() -> None:
    command = command_override(_variables({"AMELIA_ISSUE_NUMBER": "3"}), SCHEDULE, RunnerContext())
    assert command is not None and command.kind == "plan"


def test_help_override_uses_the_trigger_phrase() -> None:
    command = command_override(
        _variables({"AMELIA_COMMAND": "help"}), SCHEDULE, RunnerContext(), trigger_phrase="/bot"
    )
    assert command is not None and "`/bot plan`" in command.reply


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"AMELIA_COMMAND": "deploy"}, "AMELIA_COMMAND must be one of"),
        ({"AMELIA_ISSUE_NUMBER": "x1"}, "positive issue number"),
        ({"AMELIA_ISSUE_NUMBER": "0"}, "positive issue number"),
        ({"AMELIA_COMMAND": "plan"}, "needs AMELIA_ISSUE_NUMBER"),
    ],
)
def test_bad_overrides_are_configuration_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        command_override(_variables(env), SCHEDULE, RunnerContext())


def test_existing_plan_is_found_by_issue_number(tmp_path: Path) -> None:
    plans = tmp_path / "docs" / "plans"
    plans.mkdir(parents=True)
    (plans / "2026-01-01-issue-12-old-title.md").write_text("# plan\n")
    (plans / "2026-01-01-issue-1-other.md").write_text("# other\n")
    found = existing_plan(tmp_path, "docs/plans", 12)
    assert found == "docs/plans/2026-01-01-issue-12-old-title.md"
    assert existing_plan(tmp_path, "docs/plans", 2) is None
    assert existing_plan(tmp_path, "missing", 12) is None


def test_plan_file_with_braces_is_not_reused_as_a_pattern(tmp_path: Path) -> None:
    plans = tmp_path / "plans"
    plans.mkdir()
    (plans / "issue-4-{slug}.md").write_text("# plan\n")
    assert existing_plan(tmp_path, "plans", 4) is None


def test_commit_title_is_one_sanitized_line() -> None:
    title = commit_title(7, "Fix\u202e it <!-- run rm -rf / -->\nnow " + "x" * 100)
    assert title.startswith("Plan issue #7: Fix it now")
    assert "\n" not in title and "rm -rf" not in title and "\u202e" not in title
    assert len(title) <= 72
    assert commit_title(7, "") == "Plan issue #7"


def test_co_author_trailer_uses_the_noreply_address() -> None:
    assert co_author("ada") == "ada <ada@users.noreply.github.com>"
    assert co_author(None) is None


def test_registered_modes_load() -> None:
    for kind in MODE_MODULES:
        mode = load_mode(kind)
        assert isinstance(mode, Mode)
    assert load_mode("no-such-kind") is None


def test_outputs_file_parses_lines_and_heredocs() -> None:
    text = "conclusion=success\nissues<<amelia_abc\n[1,\n2]\namelia_abc\nbranch=a=b\n"
    assert parse_outputs(text) == {"conclusion": "success", "issues": "[1,\n2]", "branch": "a=b"}


def test_event_payload_round_trip_for_schedule() -> None:
    assert isinstance(parse_event("schedule", b'{"schedule": "0 0 * * *"}'), ScheduleEvent)
