"""The calls of the agentic Architect design document (seed 004), as it wrote them:
`ExecutionState.raw_architect_output`, the exploration prompt, `Architect(driver)` with
`plan(state, profile, workflow_id=…)` as an async generator of `(state, event)`, and the
orchestrator's `DriverFactory.get_driver(profile.driver, model=profile.model)` feeding
`architect.plan(state=…, profile=…, workflow_id=…)`, here with the real API driver against
the local OpenRouter-compatible server rather than a patched `execute_agentic`.

`Architect(driver, stream_emitter=…, prompts=…)` and `_build_agentic_prompt` belonged to
that project's LangGraph orchestrator: the pipeline here hands the events to its sinks and
builds the prompt with `build_plan_prompt`, so those two are left out.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from amelia.agents.architect import Architect
from amelia.core.state import ExecutionState
from amelia.core.types import Issue, Profile, StreamEvent
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.factory import DriverFactory
from amelia.testing import ScriptedOpenAIServer
from amelia.testing.openai_server import text, tool_call
from amelia.testing.scripted_driver import ScriptedDriver

PLAN = "# Implementation Plan\n\n**Goal:** Implement feature Y\n\n## Task 1\n\nDo it.\n"


class TestExecutionStateRawArchitectOutput:
    def test_raw_architect_output_defaults_to_none(self) -> None:
        state = ExecutionState(profile_id="test")
        assert state.raw_architect_output is None

    def test_raw_architect_output_stores_string(self) -> None:
        markdown = "# Plan\n\n**Goal:** Do something"
        state = ExecutionState(profile_id="test", raw_architect_output=markdown)
        assert state.raw_architect_output == markdown

    def test_raw_architect_output_in_model_copy(self) -> None:
        state = ExecutionState(profile_id="test")
        new_state = state.model_copy(update={"raw_architect_output": "# Updated"})
        assert new_state.raw_architect_output == "# Updated"
        assert state.raw_architect_output is None


class TestArchitectAgenticPrompt:
    def test_plan_prompt_includes_exploration_guidance(self) -> None:
        architect = Architect(ScriptedDriver())
        prompt = architect.plan_prompt
        assert "read-only" in prompt.lower() or "exploration" in prompt.lower()
        assert "DO NOT modify" in prompt or "do not modify" in prompt.lower()

    def test_plan_prompt_emphasizes_references_over_code(self) -> None:
        architect = Architect(ScriptedDriver())
        prompt = architect.plan_prompt
        assert "reference" in prompt.lower()
        assert "NOT to Include" in prompt or "What NOT" in prompt


class _AgenticDriver(ScriptedDriver):
    """A driver whose `execute_agentic` the test replaces, as the document's mock did."""


@pytest.fixture
def state_with_issue() -> tuple[ExecutionState, Profile]:
    issue = Issue(id="TEST-1", title="Add feature", description="Add feature X")
    state = ExecutionState(profile_id="test", issue=issue)
    return state, Profile()


class TestArchitectPlanAsyncGenerator:
    async def test_plan_returns_async_iterator(
        self,
        state_with_issue: tuple[ExecutionState, Profile],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.chdir(tmp_path)  # the plan is saved under the current directory
        state, profile = state_with_issue

        async def mock_stream(*args: Any, **kwargs: Any) -> AsyncIterator[AgenticMessage]:
            yield AgenticMessage(type=AgenticMessageType.RESULT, content="# Plan\n\n**Goal:** Test")

        driver = _AgenticDriver()
        driver.execute_agentic = mock_stream  # type: ignore[method-assign]
        architect = Architect(driver)

        result = architect.plan(state, profile, workflow_id="wf-1")

        assert hasattr(result, "__aiter__")
        assert hasattr(result, "__anext__")
        await result.aclose()

    async def test_plan_yields_state_and_event_tuples(
        self,
        state_with_issue: tuple[ExecutionState, Profile],
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.chdir(tmp_path)
        state, profile = state_with_issue

        async def mock_stream(*args: Any, **kwargs: Any) -> AsyncIterator[AgenticMessage]:
            yield AgenticMessage(
                type=AgenticMessageType.TOOL_CALL,
                tool_name="read_file",
                tool_input={"path": "src/main.py"},
                tool_call_id="call-1",
            )
            yield AgenticMessage(
                type=AgenticMessageType.RESULT, content="# Plan\n\n**Goal:** Test goal"
            )

        driver = _AgenticDriver()
        driver.execute_agentic = mock_stream  # type: ignore[method-assign]
        architect = Architect(driver)

        results = []
        async for new_state, event in architect.plan(state, profile, workflow_id="wf-1"):
            results.append((new_state, event))

        assert len(results) >= 1
        for new_state, event in results:
            assert isinstance(new_state, ExecutionState)
            assert isinstance(event, StreamEvent)


async def test_the_orchestrators_calls_plan_with_a_driver_from_the_factory(
    openai_model: ScriptedOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("def main(): pass\n")
    monkeypatch.chdir(tmp_path)
    openai_model.add_turns(
        [tool_call("read_file", {"file_path": "src/main.py"}, "call-1")],
        [text(PLAN)],
    )
    profile = Profile(driver="api:openrouter", model="openrouter:anthropic/claude-3.5-sonnet")
    issue = Issue(id="TEST-2", title="Add feature Y", description="Add a new feature Y")
    state = ExecutionState(issue=issue)
    emitted_events: list[StreamEvent] = []

    driver = DriverFactory.get_driver(profile.driver, model=profile.model)
    architect = Architect(driver)
    final_state = state
    async for new_state, event in architect.plan(
        state=state, profile=profile, workflow_id="wf-agentic-1"
    ):
        final_state = new_state
        emitted_events.append(event)

    assert final_state.goal == "Implement feature Y"
    assert final_state.raw_architect_output is not None
    assert "## Task 1" in final_state.raw_architect_output
    assert final_state.plan_path is not None
    assert (tmp_path / final_state.plan_path).read_text().startswith("# Implementation Plan")
    assert len(final_state.tool_calls) >= 1
    assert final_state.tool_calls[0].tool_name == "read_file"
    assert "def main(): pass" in (final_state.tool_results[0].output or "")
    assert len(emitted_events) >= 1
    assert openai_model.requests[0].headers["authorization"] == "Bearer test-openrouter-key"
