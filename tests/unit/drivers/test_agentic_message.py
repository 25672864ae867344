"""AgenticMessage: the driver → agent boundary and its mapping to StreamEvent."""

import inspect

import pytest
from pydantic import ValidationError

from amelia.core.types import StreamEvent, StreamEventType
from amelia.drivers.base import (
    AgenticMessage,
    AgenticMessageType,
    DriverInterface,
    DriverUsage,
)


def test_message_type_values() -> None:
    assert [t.value for t in AgenticMessageType] == [
        "thinking",
        "tool_call",
        "tool_result",
        "result",
    ]


def test_is_error_defaults_to_false_for_every_type() -> None:
    for message_type in AgenticMessageType:
        message = AgenticMessage(type=message_type)
        assert message.is_error is False
        assert message.to_stream_event("developer", "wf").is_error is False


@pytest.mark.parametrize(
    ("message_type", "event_type"),
    [
        (AgenticMessageType.THINKING, StreamEventType.CLAUDE_THINKING),
        (AgenticMessageType.TOOL_CALL, StreamEventType.CLAUDE_TOOL_CALL),
        (AgenticMessageType.TOOL_RESULT, StreamEventType.CLAUDE_TOOL_RESULT),
        (AgenticMessageType.RESULT, StreamEventType.AGENT_OUTPUT),
    ],
)
def test_to_stream_event_maps_each_type(
    message_type: AgenticMessageType, event_type: StreamEventType
) -> None:
    message = AgenticMessage(
        type=message_type,
        content="text",
        tool_name="Bash",
        tool_input={"command": "ls"},
        tool_call_id="call_1",
    )
    event = message.to_stream_event(agent="architect", workflow_id="wf_9")
    assert isinstance(event, StreamEvent)
    assert event.type is event_type
    assert event.agent == "architect"
    assert event.workflow_id == "wf_9"
    assert event.content == "text"
    assert event.tool_name == "Bash"
    assert event.tool_input == {"command": "ls"}


def test_content_falls_back_to_tool_output() -> None:
    message = AgenticMessage(
        type=AgenticMessageType.TOOL_RESULT, tool_name="Read", tool_output="file body"
    )
    assert message.to_stream_event("developer", "wf").content == "file body"


def test_content_wins_over_tool_output() -> None:
    message = AgenticMessage(
        type=AgenticMessageType.TOOL_RESULT, content="summary", tool_output="raw"
    )
    assert message.to_stream_event("developer", "wf").content == "summary"


def test_error_flag_is_carried() -> None:
    message = AgenticMessage(
        type=AgenticMessageType.TOOL_RESULT,
        tool_name="Bash",
        tool_output="exit 1",
        is_error=True,
    )
    event = message.to_stream_event("developer", "wf")
    assert event.is_error is True
    assert event.type is StreamEventType.CLAUDE_TOOL_RESULT


def test_events_get_distinct_ids_and_are_frozen() -> None:
    message = AgenticMessage(type=AgenticMessageType.THINKING, content="hm")
    first = message.to_stream_event("a", "wf")
    second = message.to_stream_event("a", "wf")
    assert first.id != second.id
    with pytest.raises(ValidationError):
        first.content = "changed"  # type: ignore[misc]


def test_result_carries_session_and_usage() -> None:
    usage = DriverUsage(input_tokens=10, output_tokens=5, cost_usd=0.01, num_turns=2, model="m")
    message = AgenticMessage(
        type=AgenticMessageType.RESULT, content="done", session_id="s1", usage=usage
    )
    assert message.session_id == "s1"
    assert message.usage is not None
    assert message.usage.num_turns == 2


def test_unknown_type_is_rejected() -> None:
    with pytest.raises(ValidationError):
        AgenticMessage(type="speech")


def test_execute_agentic_signature() -> None:
    signature = inspect.signature(DriverInterface.execute_agentic)
    assert list(signature.parameters) == [
        "self",
        "prompt",
        "cwd",
        "session_id",
        "instructions",
        "schema",
    ]
    defaults = {
        name: parameter.default
        for name, parameter in signature.parameters.items()
        if parameter.default is not inspect.Parameter.empty
    }
    assert defaults == {"session_id": None, "instructions": None, "schema": None}


def test_generate_signature() -> None:
    signature = inspect.signature(DriverInterface.generate)
    assert list(signature.parameters) == ["self", "prompt", "system_prompt", "schema"]
