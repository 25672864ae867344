"""MessageMapper maps a growing pydantic-ai history part by part, each part once."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

from amelia.drivers.api.mapping import MessageMapper
from amelia.drivers.base import AgenticMessageType


def _call(number: int) -> ModelResponse:
    return ModelResponse(
        parts=[ToolCallPart("read_file", {"file_path": f"{number}.txt"}, tool_call_id=f"c{number}")]
    )


def _result(number: int) -> ModelRequest:
    return ModelRequest(
        parts=[ToolReturnPart("read_file", f"text {number}", tool_call_id=f"c{number}")]
    )


def test_a_growing_history_maps_each_part_once_in_order() -> None:
    earlier: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")]), _call(0), _result(0)]
    mapper = MessageMapper()
    mapper.mark_seen(earlier)
    history = list(earlier)
    seen = []
    for number in range(1, 4):
        history.append(_call(number))
        seen += [(m.type, m.tool_call_id) for m in mapper.new_messages(history)]
        seen += [(m.type, m.tool_call_id) for m in mapper.new_messages(history)]  # no change
        history.append(_result(number))
        seen += [(m.type, m.tool_call_id) for m in mapper.new_messages(history)]
    last = history[-1]
    assert isinstance(last, ModelRequest)
    last.parts = [*last.parts, ToolReturnPart("read_file", "late", tool_call_id="c9")]
    history.append(ModelResponse(parts=[TextPart("done")]))
    seen += [(m.type, m.tool_call_id) for m in mapper.new_messages(history)]

    calls = [(AgenticMessageType.TOOL_CALL, f"c{n}") for n in range(1, 4)]
    results = [(AgenticMessageType.TOOL_RESULT, f"c{n}") for n in range(1, 4)]
    assert seen == [
        *[pair for both in zip(calls, results, strict=True) for pair in both],
        (AgenticMessageType.TOOL_RESULT, "c9"),
        (AgenticMessageType.THINKING, None),
    ]


def test_a_different_history_is_looked_at_whole() -> None:
    mapper = MessageMapper()
    long_history: list[ModelMessage] = [_call(n) for n in range(5)]
    assert len(list(mapper.new_messages(long_history))) == 5
    assert [m.tool_call_id for m in mapper.new_messages([_call(7), _call(8)])] == ["c7", "c8"]
