"""claude-agent-sdk's own message dataclasses → AgenticMessage."""

from __future__ import annotations

import json
from typing import Any

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)
from pydantic import BaseModel

from amelia.drivers.base import AgenticMessageType
from amelia.drivers.cli._claude_mapping import (
    MessageMapper,
    extract_json_text,
    tool_result_text,
)
from amelia.drivers.cli.claude import validate_answer
from amelia.errors import DriverError


def result_message(**overrides: object) -> ResultMessage:
    fields: dict[str, object] = {
        "subtype": "success",
        "duration_ms": 1234,
        "duration_api_ms": 1000,
        "is_error": False,
        "num_turns": 3,
        "session_id": "sess-1",
        "total_cost_usd": 0.25,
        "usage": {
            "input_tokens": 100,
            "output_tokens": 20,
            "cache_read_input_tokens": 5,
            "cache_creation_input_tokens": 7,
        },
        "result": "all done",
    }
    fields.update(overrides)
    return ResultMessage(**fields)  # type: ignore[arg-type]


def assistant(*blocks: TextBlock | ThinkingBlock | ToolUseBlock) -> AssistantMessage:
    return AssistantMessage(content=list(blocks), model="claude-test")


def test_text_and_thinking_become_thinking_messages() -> None:
    mapped = MessageMapper().map(
        assistant(ThinkingBlock(thinking="pondering", signature="sig"), TextBlock(text="I will"))
    )
    assert [(m.type, m.content) for m in mapped] == [
        (AgenticMessageType.THINKING, "pondering"),
        (AgenticMessageType.THINKING, "I will"),
    ]


def test_tool_results_in_user_messages_carry_the_calls_name_and_error_flag() -> None:
    mapper = MessageMapper()
    [call] = mapper.map(assistant(ToolUseBlock(id="toolu_1", name="Bash", input={"command": "x"})))
    assert (call.type, call.tool_name, call.tool_input, call.tool_call_id) == (
        AgenticMessageType.TOOL_CALL,
        "Bash",
        {"command": "x"},
        "toolu_1",
    )
    mapped = mapper.map(
        UserMessage(
            content=[
                ToolResultBlock(tool_use_id="toolu_1", content="exit 3", is_error=True),
                ToolResultBlock(tool_use_id="toolu_1", content="fine", is_error=None),
                ToolResultBlock(tool_use_id="toolu_unknown", content=None, is_error=False),
            ]
        )
    )
    assert [(m.type, m.tool_name, m.tool_call_id, m.is_error, m.tool_output) for m in mapped] == [
        (AgenticMessageType.TOOL_RESULT, "Bash", "toolu_1", True, "exit 3"),
        (AgenticMessageType.TOOL_RESULT, "Bash", "toolu_1", False, "fine"),
        (AgenticMessageType.TOOL_RESULT, None, "toolu_unknown", False, ""),
    ]


def test_list_content_of_a_tool_result_becomes_text() -> None:
    content: list[dict[str, Any]] = [
        {"type": "text", "text": "line one"},
        {"type": "image", "source": {}},
    ]
    assert tool_result_text(content) == "line one\n[image]"


def test_plain_user_prompts_map_to_nothing() -> None:
    assert MessageMapper().map(UserMessage(content="hello")) == []


def test_result_carries_session_usage_and_model() -> None:
    mapper = MessageMapper()
    mapper.map(SystemMessage(subtype="init", data={"session_id": "s0", "model": "claude-x"}))
    [result] = mapper.map(result_message())
    assert result.type == AgenticMessageType.RESULT
    assert (result.content, result.session_id, result.is_error) == ("all done", "sess-1", False)
    assert result.usage is not None
    assert result.usage.model_dump() == {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_read_tokens": 5,
        "cache_creation_tokens": 7,
        "cost_usd": 0.25,
        "duration_ms": 1234,
        "num_turns": 3,
        "model": "claude-x",
    }


def test_init_message_reports_the_announced_tools() -> None:
    mapper = MessageMapper()
    mapper.map(SystemMessage(subtype="init", data={"tools": ["Bash", "Read"]}))
    assert mapper.tools == ["Bash", "Read"]


def test_structured_output_becomes_json_content() -> None:
    mapper = MessageMapper(structured=True)
    [result] = mapper.map(result_message(structured_output={"approved": True}, result=""))
    assert json.loads(result.content or "") == {"approved": True}


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ({"api_error_status": 529, "result": "API Error: 529 overloaded"}, "API HTTP 529"),
        ({"subtype": "error_max_turns", "result": None}, "maximum number of turns reached"),
        ({"subtype": "error_during_execution", "result": None, "errors": ["boom"]}, "boom"),
    ],
)
def test_error_results_say_why_on_one_line(overrides: dict[str, object], expected: str) -> None:
    [result] = MessageMapper().map(result_message(is_error=True, **overrides))
    assert result.is_error
    assert result.content is not None and expected in result.content
    assert "\n" not in result.content


def test_error_result_for_a_run_without_the_clis_result() -> None:
    mapper = MessageMapper(model="claude-x")
    mapper.map(SystemMessage(subtype="init", data={"session_id": "s9"}))
    result = mapper.error_result("Claude Code timed out after 5 s\nmore")
    assert (result.type, result.is_error, result.session_id) == (
        AgenticMessageType.RESULT,
        True,
        "s9",
    )
    assert result.content == "Claude Code timed out after 5 s more"


class Plan(BaseModel):
    steps: list[str]


def test_fenced_json_answers_validate() -> None:
    answer = 'Here it is:\n```json\n{"steps": ["a", "b"]}\n```\n'
    assert extract_json_text(answer) == '{"steps": ["a", "b"]}'
    assert validate_answer(answer, Plan) == Plan(steps=["a", "b"])


def test_an_invalid_answer_names_the_schema() -> None:
    with pytest.raises(DriverError, match="schema Plan"):
        validate_answer('{"steps": 3}', Plan)
