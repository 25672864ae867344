"""`amelia action` on `schedule` and `workflow_dispatch` scan: list labelled issues without
a plan branch for a matrix of plan jobs, in requests that grow with pages, not issues."""

from __future__ import annotations

import json
import math

import pytest

from amelia.testing.action_harness import ActionHarness

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SCHEDULE = {"schedule": "17 3 * * *", "repository": {"full_name": "octo/app"}}
PER_PAGE = 100  # what GitHubClient asks for


def test_scan_lists_labelled_issues_without_a_plan_branch(harness: ActionHarness) -> None:
    labelled = [harness.add_issue(f"Task {i}", labels=["amelia"]) for i in range(250)]
    others = [harness.add_issue(f"Other {i}", labels=["bug"]) for i in range(5)]
    closed = harness.github.add_issue(harness.repo, "Done", labels=["amelia"], state="closed")
    planned = {labelled[2], labelled[16], labelled[249]}
    for number in planned | {others[0]}:
        harness.origin_git("branch", f"amelia/issue-{number}", "main")
    harness.origin_git("branch", "amelia/issue-notanumber", "main")

    result = harness.run("schedule", SCHEDULE)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "success"
    waiting = json.loads(result.outputs["issues"])
    assert waiting == sorted(set(labelled) - planned)
    assert closed not in waiting
    pages = math.ceil(251 / PER_PAGE)
    assert len(result.github_requests) <= pages + 5
    assert result.github_writes == []
    assert result.model_requests == []


def test_dispatched_scan_plans_up_to_max_issues_itself(harness: ActionHarness) -> None:
    first = harness.add_issue("Add a farewell", "Say goodbye.", labels=["amelia"])
    second = harness.add_issue("Add a welcome", "Say welcome.", labels=["amelia"])
    third = harness.add_issue("Add a toast", "Say cheers.", labels=["amelia"])

    result = harness.run(
        "workflow_dispatch", harness.dispatch_event(command="scan"), inputs={"max_issues": "1"}
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    # The one planned here is left out of the list the matrix plans.
    assert json.loads(result.outputs["issues"]) == [second, third]
    assert f"amelia/issue-{first}" in harness.origin_branches()
    assert f"amelia/issue-{second}" not in harness.origin_branches()
    plans = [f for f in harness.origin_files(f"amelia/issue-{first}") if "docs/plans/" in f]
    assert len(plans) == 1


def test_scan_with_nothing_waiting_outputs_an_empty_list(harness: ActionHarness) -> None:
    harness.add_issue("Unrelated", labels=["bug"])
    result = harness.run("schedule", SCHEDULE)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["issues"] == "[]"
    assert "::notice::amelia scan: 0 open issue(s) labelled amelia" in result.stdout
