"""The calls of the unified `AgenticMessage` design documents (seeds 000 and 001), as they
wrote them: the message types, `to_stream_event`, `StreamEvent.is_error`, `execute_agentic`
on `DriverInterface`, both drivers yielding `AgenticMessage`s, and agents without driver
`isinstance` checks or SDK imports.

Where the documents mocked the SDK (`patch.object(driver, "_query", …)`), the real drivers
run here against the local scripted model servers instead: the Claude Code CLI against the
Anthropic Messages API, pydantic-ai against the OpenAI-compatible one. `ApiDriver(cwd=…)` and
the LangChain message types belong to a driver the documents replaced and are left out.
"""

from __future__ import annotations

import ast
import inspect
from datetime import UTC, datetime
from pathlib import Path

import pytest

from amelia.core.types import StreamEvent, StreamEventType
from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverInterface
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.testing import ScriptedOpenAIServer
from amelia.testing import openai_server as openai
from amelia.testing.anthropic_script import api_error, text, tool_use
from tests.seeds.conftest import ClaudeModel


class TestAgenticMessageType:
    def test_has_thinking_type(self) -> None:
        assert AgenticMessageType.THINKING == "thinking"  # type: ignore[comparison-overlap]

    def test_has_tool_call_type(self) -> None:
        assert AgenticMessageType.TOOL_CALL == "tool_call"  # type: ignore[comparison-overlap]

    def test_has_tool_result_type(self) -> None:
        assert AgenticMessageType.TOOL_RESULT == "tool_result"  # type: ignore[comparison-overlap]

    def test_has_result_type(self) -> None:
        assert AgenticMessageType.RESULT == "result"  # type: ignore[comparison-overlap]


class TestAgenticMessage:
    def test_creates_thinking_message(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.THINKING,
            content="Let me analyze this problem...",
        )
        assert msg.type == AgenticMessageType.THINKING
        assert msg.content == "Let me analyze this problem..."
        assert msg.tool_name is None
        assert msg.is_error is False

    def test_creates_tool_call_message(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_CALL,
            tool_name="read_file",
            tool_input={"path": "/test.py"},
            tool_call_id="call_123",
        )
        assert msg.type == AgenticMessageType.TOOL_CALL
        assert msg.tool_name == "read_file"
        assert msg.tool_input == {"path": "/test.py"}
        assert msg.tool_call_id == "call_123"

    def test_creates_tool_result_message(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name="read_file",
            tool_output="file contents here",
            tool_call_id="call_123",
            is_error=False,
        )
        assert msg.type == AgenticMessageType.TOOL_RESULT
        assert msg.tool_output == "file contents here"
        assert msg.is_error is False

    def test_creates_error_result_message(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name="read_file",
            tool_output="File not found",
            tool_call_id="call_123",
            is_error=True,
        )
        assert msg.is_error is True

    def test_creates_result_message(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.RESULT,
            content="Task completed successfully",
            session_id="session_abc",
        )
        assert msg.type == AgenticMessageType.RESULT
        assert msg.content == "Task completed successfully"
        assert msg.session_id == "session_abc"

    def test_is_error_defaults_to_false(self) -> None:
        msg = AgenticMessage(type=AgenticMessageType.THINKING, content="test")
        assert msg.is_error is False


class TestStreamEventIsError:
    def test_is_error_defaults_to_false(self) -> None:
        event = StreamEvent(
            type=StreamEventType.CLAUDE_TOOL_RESULT,
            content="result",
            timestamp=datetime.now(UTC),
            agent="developer",
            workflow_id="wf_123",
        )
        assert event.is_error is False

    def test_is_error_can_be_true(self) -> None:
        event = StreamEvent(
            type=StreamEventType.CLAUDE_TOOL_RESULT,
            content="Error: file not found",
            timestamp=datetime.now(UTC),
            agent="developer",
            workflow_id="wf_123",
            is_error=True,
        )
        assert event.is_error is True


class TestAgenticMessageToStreamEvent:
    def test_thinking_converts_to_claude_thinking(self) -> None:
        msg = AgenticMessage(type=AgenticMessageType.THINKING, content="Analyzing the problem...")
        event = msg.to_stream_event(agent="developer", workflow_id="wf_123")
        assert event.type == StreamEventType.CLAUDE_THINKING
        assert event.content == "Analyzing the problem..."
        assert event.agent == "developer"
        assert event.workflow_id == "wf_123"
        assert event.is_error is False

    def test_tool_call_converts_to_claude_tool_call(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_CALL,
            tool_name="read_file",
            tool_input={"path": "/test.py"},
        )
        event = msg.to_stream_event(agent="developer", workflow_id="wf_123")
        assert event.type == StreamEventType.CLAUDE_TOOL_CALL
        assert event.tool_name == "read_file"
        assert event.tool_input == {"path": "/test.py"}

    def test_tool_result_converts_to_claude_tool_result(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name="read_file",
            tool_output="file contents",
            is_error=False,
        )
        event = msg.to_stream_event(agent="developer", workflow_id="wf_123")
        assert event.type == StreamEventType.CLAUDE_TOOL_RESULT
        assert event.content == "file contents"
        assert event.is_error is False

    def test_error_result_preserves_is_error(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name="bash",
            tool_output="Command failed",
            is_error=True,
        )
        event = msg.to_stream_event(agent="developer", workflow_id="wf_123")
        assert event.type == StreamEventType.CLAUDE_TOOL_RESULT
        assert event.is_error is True

    def test_result_converts_to_agent_output(self) -> None:
        msg = AgenticMessage(
            type=AgenticMessageType.RESULT, content="Task completed", session_id="sess_abc"
        )
        event = msg.to_stream_event(agent="developer", workflow_id="wf_123")
        assert event.type == StreamEventType.AGENT_OUTPUT
        assert event.content == "Task completed"


class TestDriverInterfaceProtocol:
    def test_protocol_has_execute_agentic_method(self) -> None:
        assert hasattr(DriverInterface, "execute_agentic")
        method = DriverInterface.execute_agentic
        sig = inspect.signature(method)
        assert "prompt" in sig.parameters
        assert "cwd" in sig.parameters
        for name in ("session_id", "instructions", "schema"):
            assert sig.parameters[name].default is None

    def test_claude_cli_driver_implements_protocol(self) -> None:
        driver = ClaudeCliDriver()
        assert hasattr(driver, "execute_agentic")
        assert hasattr(driver, "generate")
        assert isinstance(driver, DriverInterface)

    def test_api_driver_implements_protocol(self) -> None:
        driver = ApiDriver(model="openai:gpt-4o")
        assert hasattr(driver, "execute_agentic")
        assert hasattr(driver, "generate")
        assert isinstance(driver, DriverInterface)


class TestExecuteAgenticYieldsAgenticMessage:
    """`ClaudeCliDriver().execute_agentic(prompt, cwd)`: the real CLI, a scripted model."""

    async def test_yields_each_kind_of_message(
        self, claude_model: ClaudeModel, tmp_path: Path
    ) -> None:
        (tmp_path / "test.py").write_text("file contents here\n")
        claude_model(
            [
                [
                    text("Let me analyze this..."),
                    tool_use("Read", {"file_path": str(tmp_path / "test.py")}, id="toolu_123"),
                ],
                [tool_use("Read", {"file_path": str(tmp_path / "missing.py")})],
                [text("Task completed")],
            ]
        )
        driver = ClaudeCliDriver()

        results = [msg async for msg in driver.execute_agentic("test", str(tmp_path))]

        assert all(isinstance(m, AgenticMessage) for m in results)
        thinking_msgs = [m for m in results if m.type == AgenticMessageType.THINKING]
        assert any(m.content == "Let me analyze this..." for m in thinking_msgs)
        tool_calls = [m for m in results if m.type == AgenticMessageType.TOOL_CALL]
        assert tool_calls[0].tool_name == "Read"
        assert tool_calls[0].tool_input == {"file_path": str(tmp_path / "test.py")}
        assert tool_calls[0].tool_call_id == "toolu_123"
        tool_results = [m for m in results if m.type == AgenticMessageType.TOOL_RESULT]
        assert len(tool_results) == 2
        assert "file contents here" in (tool_results[0].tool_output or "")
        assert tool_results[0].is_error is False and tool_results[0].tool_name == "Read"
        assert tool_results[1].is_error is True
        result_msgs = [m for m in results if m.type == AgenticMessageType.RESULT]
        assert len(result_msgs) == 1 and results[-1] is result_msgs[0]
        assert result_msgs[0].content == "Task completed"
        assert result_msgs[0].session_id

    async def test_yields_error_result(self, claude_model: ClaudeModel, tmp_path: Path) -> None:
        claude_model([api_error(400, "Execution failed", times=None)])
        driver = ClaudeCliDriver()

        results = [msg async for msg in driver.execute_agentic(prompt="test", cwd=str(tmp_path))]

        result_msgs = [m for m in results if m.type == AgenticMessageType.RESULT]
        assert len(result_msgs) == 1
        assert result_msgs[0].is_error is True


async def test_the_api_driver_yields_agentic_messages_too(
    openai_model: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    (tmp_path / "test.py").write_text("file contents\n")
    openai_model.add_turns(
        [
            openai.text("Analyzing the code..."),
            openai.tool_call("read_file", {"file_path": "test.py"}, "call_123"),
        ],
        [openai.text("Task completed successfully")],
    )
    driver = ApiDriver(model="openai:gpt-4o")

    results = [msg async for msg in driver.execute_agentic(prompt="test prompt", cwd=str(tmp_path))]

    assert all(isinstance(m, AgenticMessage) for m in results)
    types = [m.type for m in results]
    assert AgenticMessageType.THINKING in types
    (tool_call,) = [m for m in results if m.type == AgenticMessageType.TOOL_CALL]
    assert tool_call.tool_name == "read_file" and tool_call.tool_call_id == "call_123"
    (tool_result,) = [m for m in results if m.type == AgenticMessageType.TOOL_RESULT]
    assert tool_result.tool_name == "read_file" and "file contents" in (
        tool_result.tool_output or ""
    )
    assert tool_result.is_error is False
    assert results[-1].type == AgenticMessageType.RESULT
    assert results[-1].content == "Task completed successfully"


def _isinstance_checks_on_drivers(cls: type) -> list[str]:
    tree = ast.parse(inspect.getsource(cls))
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Name)
            and node.args[1].id in ("ClaudeCliDriver", "ApiDriver")
        ):
            found.append(node.args[1].id)
    return found


def _sdk_imports(module: object) -> list[str]:
    tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
    return [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and ("claude_agent_sdk" in node.module or "langchain" in node.module)
    ]


@pytest.mark.parametrize("name", ["developer", "reviewer", "architect"])
def test_agents_use_one_execution_path_without_driver_types_or_sdk_imports(name: str) -> None:
    import importlib

    module = importlib.import_module(f"amelia.agents.{name}")
    agent = getattr(module, name.capitalize())
    assert _isinstance_checks_on_drivers(agent) == []
    assert _sdk_imports(module) == []
