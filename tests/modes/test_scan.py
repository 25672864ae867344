"""The scan on `schedule` and `workflow_dispatch`, run in-process: hand out labelled issues
without a plan branch to a matrix of plan jobs, at most `scan_limit` (never more than the
256 jobs GitHub runs from one matrix), oldest first, in requests that grow with pages, not
issues; what is left waits for the next scan."""

from __future__ import annotations

import json
import math

import pytest

from amelia.git import run_git_bytes
from amelia.testing.action_harness import ActionHarness

SCHEDULE = {"schedule": "17 3 * * *", "repository": {"full_name": "octo/app"}}
PER_PAGE = 100  # what GitHubClient asks for
SETUP_REQUESTS = 5
"""Requests a scan may make besides one per page of the issue list (its configuration, …)."""


def mark_planned(action: ActionHarness, numbers: range | list[int]) -> None:
    """Give each issue the plan branch a plan run pushes (`amelia/issue-<n>` on origin)."""
    main = action.origin_git("rev-parse", "main").strip()
    commands = "".join(f"create refs/heads/amelia/issue-{n} {main}\n" for n in numbers)
    run_git_bytes(["update-ref", "--stdin"], action.origin, input=commands.encode())


def test_scan_lists_labelled_issues_without_a_plan_branch(action: ActionHarness) -> None:
    labelled = [action.add_issue(f"Task {i}", labels=["amelia"]) for i in range(250)]
    others = [action.add_issue(f"Other {i}", labels=["bug"]) for i in range(5)]
    closed = action.github.add_issue(action.repo, "Done", labels=["amelia"], state="closed")
    planned = {labelled[2], labelled[16], labelled[249]}
    for number in planned | {others[0]}:
        action.origin_git("branch", f"amelia/issue-{number}", "main")
    action.origin_git("branch", "amelia/issue-notanumber", "main")

    result = action.run_in_process("schedule", SCHEDULE, inputs={"scan_limit": "256"})

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "success"
    waiting = json.loads(result.outputs["issues"])
    assert waiting == sorted(set(labelled) - planned)
    assert closed not in waiting
    assert "| waited: open, labelled, no plan branch | 247 |" in result.summary
    assert "| left for the next scan | 0 |" in result.summary
    pages = math.ceil(251 / PER_PAGE)
    assert len(result.github_requests) <= pages + SETUP_REQUESTS
    assert result.github_writes == []
    assert not result.agent_requests


def test_300_waiting_issues_are_handed_out_within_the_matrix_limit_then_the_next_ones(
    action: ActionHarness,
) -> None:
    labelled = [action.add_issue(f"Task {i}", labels=["amelia"]) for i in range(300)]
    action.add_issue("Unrelated", labels=["bug"])

    # A bound above GitHub's 256-job matrix limit is capped, with a warning.
    first = action.run_in_process("schedule", SCHEDULE, inputs={"scan_limit": "300"})

    assert first.exit_code == 0, first.stdout + first.stderr
    handed = json.loads(first.outputs["issues"])
    assert handed == labelled[:256]  # oldest first
    warnings = [line for line in first.stdout.splitlines() if line.startswith("::warning::")]
    assert len(warnings) == 1
    assert warnings[0].startswith("::warning::The `scan_limit` input is 300, above GitHub's")
    assert "at most 256 issues" in warnings[0]
    assert "> **Warning:** The `scan_limit` input is 300" in first.summary
    assert "| waited: open, labelled, no plan branch | 300 |" in first.summary
    assert "| handed out by this scan (at most 256) | 256 |" in first.summary
    assert "| left for the next scan | 44 |" in first.summary
    notice = (
        "::notice::amelia scan: 300 open issue(s) labelled amelia, 300 without a plan branch: "
        "256 handed out (0 planned in this job, 256 in `issues`), 44 left for the next scan"
    )
    assert notice in first.stdout
    pages = math.ceil(300 / PER_PAGE)
    listing = [r for r in first.github_requests if r.path == "/repos/octo/app/issues"]
    assert len(listing) == pages
    assert len(first.github_requests) <= pages + SETUP_REQUESTS
    assert first.github_writes == [] and first.model_requests == []

    # The matrix planned those 256: each now has its plan branch. The next scan, at the
    # default bound, hands out the next oldest.
    mark_planned(action, handed)
    second = action.run_in_process("schedule", SCHEDULE)

    assert second.exit_code == 0, second.stdout + second.stderr
    assert json.loads(second.outputs["issues"]) == labelled[256:276]
    assert "::warning::" not in second.stdout
    assert "| waited: open, labelled, no plan branch | 44 |" in second.summary
    assert "| handed out by this scan (at most 20) | 20 |" in second.summary
    assert "| left for the next scan | 24 |" in second.summary


def test_the_files_bound_and_order_apply_unless_the_workflow_sets_the_input(
    action: ActionHarness,
) -> None:
    plain = [action.add_issue(f"Task {i}", labels=["amelia"]) for i in range(6)]
    urgent = action.add_issue("Leak", labels=["amelia", "security"])
    config = "scan:\n  limit: 3\n  prefer_labels: [security]\n"
    action.commit_files("main", {".github/amelia.yml": config})

    from_file = action.run_in_process("schedule", SCHEDULE)
    from_input = action.run_in_process("schedule", SCHEDULE, inputs={"scan_limit": "5"})

    assert from_file.exit_code == 0, from_file.stdout + from_file.stderr
    assert json.loads(from_file.outputs["issues"]) == [urgent, *plain[:2]]
    assert "`scan.limit` in .github/amelia.yml" in from_file.summary
    assert "Order: issues labelled `security` first; oldest first." in from_file.summary
    assert json.loads(from_input.outputs["issues"]) == [urgent, *plain[:4]]


def test_a_bound_in_the_file_above_256_is_capped_with_a_warning(action: ActionHarness) -> None:
    action.add_issue("Task", labels=["amelia"])
    action.commit_files("main", {".github/amelia.yml": "scan:\n  limit: 1000\n"})

    result = action.run_in_process("schedule", SCHEDULE)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert "::warning::`scan.limit` in .github/amelia.yml is 1,000" in result.stdout
    assert "| handed out by this scan (at most 256) | 1 |" in result.summary


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("scan_limit", "0"),
        ("scan_limit", "-1"),
        ("scan_limit", "twenty"),
        ("scan_limit", "5.0"),
        ("scan_limit", "1_0"),
        ("scan_limit", "true"),
        ("max_issues", "2.0"),
    ],
)
def test_an_invalid_bound_is_one_clear_error(action: ActionHarness, name: str, value: str) -> None:
    action.add_issue("Task", labels=["amelia"])

    result = action.run_in_process("schedule", SCHEDULE, inputs={name: value})

    assert result.exit_code == 2
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert len(errors) == 1 and f"INPUT_{name.upper()}" in errors[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert "issues" not in result.outputs
    # The same `conclusion` as a bad file gets.
    assert result.outputs["conclusion"] == "failure"
    assert result.github_requests == []


@pytest.mark.parametrize("value", ["0", "true", "5.0"])
def test_an_invalid_bound_in_the_file_is_one_clear_error(action: ActionHarness, value: str) -> None:
    action.add_issue("Task", labels=["amelia"])
    action.commit_files("main", {".github/amelia.yml": f"scan:\n  limit: {value}\n"})

    result = action.run_in_process("schedule", SCHEDULE)

    assert result.exit_code == 2
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert len(errors) == 1 and ".github/amelia.yml: scan.limit:" in errors[0]
    assert "Traceback" not in result.stdout + result.stderr
    assert "issues" not in result.outputs
    assert result.outputs["conclusion"] == "failure"


def test_dispatched_scan_plans_up_to_max_issues_itself(action: ActionHarness) -> None:
    first = action.add_issue("Add a farewell", "Say goodbye.", labels=["amelia"])
    second = action.add_issue("Add a welcome", "Say welcome.", labels=["amelia"])
    third = action.add_issue("Add a toast", "Say cheers.", labels=["amelia"])

    result = action.run_in_process(
        "workflow_dispatch", action.dispatch_event(command="scan"), inputs={"max_issues": "1"}
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    # The one planned here is left out of the list the matrix plans.
    assert json.loads(result.outputs["issues"]) == [second, third]
    assert f"amelia/issue-{first}" in action.origin_branches()
    assert f"amelia/issue-{second}" not in action.origin_branches()
    plans = [f for f in action.origin_files(f"amelia/issue-{first}") if "docs/plans/" in f]
    assert len(plans) == 1
    assert "| · planned in this job (`max_issues`) | 1 |" in result.summary


def test_max_issues_plans_within_the_bound_and_a_plan_branch_keeps_an_issue_out_next_time(
    action: ActionHarness,
) -> None:
    first = action.add_issue("Add a farewell", "Say goodbye.", labels=["amelia"])
    second = action.add_issue("Add a welcome", "Say welcome.", labels=["amelia"])
    third = action.add_issue("Add a toast", "Say cheers.", labels=["amelia"])
    bounded = {"max_issues": "1", "scan_limit": "2"}

    result = action.run_in_process("schedule", SCHEDULE, inputs=bounded)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert json.loads(result.outputs["issues"]) == [second]
    assert f"amelia/issue-{first}" in action.origin_branches()
    assert "| handed out by this scan (at most 2) | 2 |" in result.summary
    assert "| left for the next scan | 1 |" in result.summary
    assert "the first 1 of them are planned in this job (`max_issues` is 1)" in result.summary

    # The issue planned here has its branch; the one handed to a matrix that never ran
    # has none, so it is handed out again, before the one left over.
    again = action.run_in_process("schedule", SCHEDULE, inputs={"scan_limit": "2"})

    assert json.loads(again.outputs["issues"]) == [second, third]
    assert "| waited: open, labelled, no plan branch | 2 |" in again.summary


def test_scan_with_nothing_waiting_outputs_an_empty_list(action: ActionHarness) -> None:
    action.add_issue("Unrelated", labels=["bug"])
    result = action.run_in_process("schedule", SCHEDULE)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["issues"] == "[]"
    assert "::notice::amelia scan: 0 open issue(s) labelled amelia" in result.stdout
