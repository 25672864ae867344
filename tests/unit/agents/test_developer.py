"""Developer: works in the worktree, gets review feedback, resumes its session."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.agents.developer import Developer
from amelia.core.state import ExecutionState, ReviewComment, ReviewResult
from amelia.core.types import StreamEvent
from amelia.errors import AgentRunFailedError, DriverError
from amelia.testing.scripted_driver import (
    RecordedCall,
    ScriptedDriver,
    ScriptStep,
    result,
    tool_call,
    tool_result,
)

PLAN = "# Plan\n\n**Goal:** Add farewell.\n\n### Task 1: farewell"


async def _run(driver: ScriptedDriver, state: ExecutionState, repo: Path) -> ExecutionState:
    pairs: list[tuple[ExecutionState, StreamEvent]] = [
        pair async for pair in Developer(driver).run(state, workflow_id="wf", repo_dir=repo)
    ]
    return pairs[-1][0]


def _writes_file(call: RecordedCall) -> list[ScriptStep]:
    assert call.cwd is not None
    (Path(call.cwd) / "farewell.py").write_text("def farewell() -> str:\n    return 'Bye'\n")
    return [
        tool_call("Write", {"file_path": "farewell.py"}, "w1"),
        tool_result("Write", "File created", "w1"),
        tool_call("Bash", {"command": "pytest"}, "b1"),
        tool_result("Bash", "1 failed", "b1", is_error=True),
        result("Added farewell.py", session_id="dev-1"),
    ]


async def test_first_round_implements_plan_and_keeps_error_results(tmp_path: Path) -> None:
    driver = ScriptedDriver([_writes_file])
    state = ExecutionState(plan_markdown=PLAN, plan_path="docs/plans/p.md")

    final = await _run(driver, state, tmp_path)

    assert (tmp_path / "farewell.py").exists()
    assert final.developer_output == "Added farewell.py"
    assert final.developer_session_id == "dev-1"
    assert [r.tool_name for r in final.error_results] == ["Bash"]
    (call,) = driver.calls
    assert call.cwd == str(tmp_path)
    assert call.session_id is None
    assert "<plan>" in call.prompt and "docs/plans/p.md" in call.prompt
    assert "Review Feedback" not in call.prompt
    assert call.instructions is not None and "Do not commit" in call.instructions


async def test_later_round_gets_review_comments_and_resumes_session(tmp_path: Path) -> None:
    review = ReviewResult(
        verdict="changes_requested",
        severity="major",
        summary="Missing test",
        comments=(ReviewComment(path="farewell.py", line=2, severity="major", body="No test"),),
    )
    state = ExecutionState(plan_markdown=PLAN, developer_session_id="dev-1", last_review=review)
    driver = ScriptedDriver([[result("Added the test", session_id="dev-1")]])

    final = await _run(driver, state, tmp_path)

    (call,) = driver.calls
    assert call.session_id == "dev-1"
    assert "<review>" in call.prompt
    assert "[major] farewell.py:2: No test" in call.prompt
    assert final.developer_output == "Added the test"


async def test_unresumable_session_falls_back_to_a_new_one(tmp_path: Path) -> None:
    state = ExecutionState(plan_markdown=PLAN, developer_session_id="gone")
    driver = ScriptedDriver([DriverError("no such session"), [result("ok", session_id="new")]])
    final = await _run(driver, state, tmp_path)
    assert [c.session_id for c in driver.calls] == ["gone", None]
    assert final.developer_session_id == "new"


async def test_error_result_fails_and_names_the_reason(tmp_path: Path) -> None:
    driver = ScriptedDriver([[result("error_max_turns", is_error=True)]])
    with pytest.raises(AgentRunFailedError, match="error_max_turns"):
        await _run(driver, ExecutionState(plan_markdown=PLAN), tmp_path)


async def test_driver_failure_mid_stream_is_not_retried(tmp_path: Path) -> None:
    driver = ScriptedDriver(
        [[tool_call("Read", {}, "r1"), DriverError("connection reset")], [result("never")]]
    )
    state = ExecutionState(plan_markdown=PLAN, developer_session_id="dev-1")
    with pytest.raises(AgentRunFailedError, match="connection reset"):
        await _run(driver, state, tmp_path)
    assert len(driver.calls) == 1


async def test_error_result_on_resume_falls_back_to_a_new_session(tmp_path: Path) -> None:
    state = ExecutionState(plan_markdown=PLAN, developer_session_id="gone")
    driver = ScriptedDriver(
        [
            [result("No conversation found with session ID: gone", is_error=True)],
            [result("ok", session_id="fresh")],
        ]
    )
    final = await _run(driver, state, tmp_path)
    assert [c.session_id for c in driver.calls] == ["gone", None]
    assert final.developer_session_id == "fresh"


async def test_error_after_work_in_a_resumed_session_is_not_retried(tmp_path: Path) -> None:
    state = ExecutionState(plan_markdown=PLAN, developer_session_id="dev-1")
    driver = ScriptedDriver(
        [
            [
                tool_call("Read", {}, "r"),
                tool_result("Read", "x", "r"),
                result("boom", is_error=True),
            ],
            [result("never")],
        ]
    )
    with pytest.raises(AgentRunFailedError, match="boom"):
        await _run(driver, state, tmp_path)
    assert len(driver.calls) == 1
