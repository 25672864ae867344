"""A change whose repository CI failed is never approved, and the developer's next round
and the reviewer see the CI outcome as amelia read it."""

from __future__ import annotations

from typing import Literal

import pytest

from amelia.agents.developer import build_developer_prompt
from amelia.agents.prompts import ci_section
from amelia.agents.reviewer import build_review_prompt
from amelia.ci.render import ci_lines, review_note
from amelia.core.ci import CiFailure, CiReport, CiRunOutcome
from amelia.core.state import ExecutionState, ReviewResult, ReviewScope
from amelia.git.changes import Changes
from amelia.pipeline.ci_gate import enforce_ci

FAILED = CiReport(
    head_sha="a" * 40,
    trigger="dispatch",
    runs=(
        CiRunOutcome(
            workflow="CI",
            status="completed",
            conclusion="failure",
            url="https://github.com/octo/app/actions/runs/7",
            failures=(CiFailure(job="test", step="Run tests", log_tail="FAILED test_bye"),),
        ),
    ),
)
PASSED = FAILED.model_copy(
    update={"runs": (CiRunOutcome(workflow="CI", status="completed", conclusion="success"),)}
)
RUNNING = FAILED.model_copy(
    update={"runs": (CiRunOutcome(workflow="CI", status="in_progress", url="u"),)}
)
APPROVED = ReviewResult(verdict="approved", summary="fine")


def _state(report: CiReport) -> ExecutionState:
    return ExecutionState(plan_markdown="# Plan", last_ci=report, last_review=APPROVED)


def test_a_failed_ci_turns_an_approval_into_a_request_for_changes() -> None:
    enforced = enforce_ci(_state(FAILED)).last_review
    assert enforced is not None and enforced.verdict == "changes_requested"
    first = enforced.comments[0]
    assert first.path == "repository CI" and first.severity == "major"
    assert "`CI` failure (job `test`, step `Run tests`)" in first.body
    assert enforce_ci(enforce_ci(_state(FAILED))) == enforce_ci(_state(FAILED))


def test_passing_or_unfinished_ci_leaves_the_verdict_and_unfinished_ci_blocks_approval() -> None:
    assert enforce_ci(_state(PASSED)).last_review == APPROVED
    assert enforce_ci(_state(RUNNING)).last_review == APPROVED
    assert RUNNING.blocks_approval and not PASSED.blocks_approval
    assert "still running" in review_note(RUNNING) and "does not approve" in review_note(RUNNING)
    assert "passed" in review_note(PASSED)
    assert review_note(CiReport(head_sha="b" * 40, trigger="dispatch", note="x")) == ""


def test_the_developer_gets_the_failing_job_and_its_log() -> None:
    state = enforce_ci(_state(FAILED))
    prompt = build_developer_prompt(state)
    assert "## Repository CI" in prompt
    assert "<ci_log>\nFAILED test_bye\n</ci_log>" in prompt
    assert "The repository's CI above fails on your changes" in prompt
    assert build_developer_prompt(_state(PASSED).evolve(last_review=None)).count("CI") == 0


def test_the_reviewer_section_and_the_description_lines_link_each_run() -> None:
    assert "- workflow `CI`: success" in ci_section(PASSED)
    assert ci_section(None) == []
    lines = "\n".join(ci_lines(FAILED))
    assert "[CI](https://github.com/octo/app/actions/runs/7): **failure**" in lines
    assert "FAILED test_bye" in lines and "<details>" in lines
    assert "still running" in "\n".join(ci_lines(RUNNING))


@pytest.mark.parametrize("kind", ["full", "incremental"])
def test_the_reviewer_gets_the_ci_section_once(kind: Literal["full", "incremental"]) -> None:
    state = ExecutionState(plan_markdown="# Plan", last_ci=FAILED)
    changes = Changes(base_ref="main", committed="+bye\n", uncommitted="", untracked="")
    scope = ReviewScope(kind=kind, base="main", head="HEAD")

    prompt = build_review_prompt(state, changes, scope=scope)

    assert prompt.count("## Repository CI") == 1
    assert prompt.count("FAILED test_bye") == 1
