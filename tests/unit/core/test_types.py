"""Core types and immutable execution state."""

import pytest
from pydantic import ValidationError

from amelia.core.state import ExecutionState, ReviewResult, ToolResult
from amelia.core.types import Issue, Profile, StreamEvent, StreamEventType


def test_stream_event_is_error_defaults_false() -> None:
    event = StreamEvent(type=StreamEventType.CLAUDE_TOOL_RESULT, agent="developer", workflow_id="w")
    assert event.is_error is False
    assert event.timestamp.tzinfo is not None


def test_execution_state_is_immutable_and_evolves() -> None:
    state = ExecutionState(issue=Issue(id="1", title="t"))
    with pytest.raises(ValidationError):
        state.goal = "x"  # type: ignore[misc]
    result = ToolResult(agent="developer", tool_name="Bash", output="boom", is_error=True)
    evolved = state.evolve(goal="Fix it", tool_results=(*state.tool_results, result))
    assert state.goal is None
    assert evolved.goal == "Fix it"
    assert evolved.error_results == (result,)
    assert evolved.issue == state.issue


def test_review_result_validates_verdict() -> None:
    assert ReviewResult(verdict="approved", summary="ok").approved
    with pytest.raises(ValidationError):
        ReviewResult(verdict="maybe", summary="?")


def test_profile_limits() -> None:
    assert Profile().max_review_iterations == 3
    with pytest.raises(ValidationError):
        Profile(max_review_iterations=0)
    with pytest.raises(ValidationError):
        Profile(driver="telepathy")
