"""Fragments of one streamed block are joined, so a path split between them is whole."""

from __future__ import annotations

import json

from amelia.replay.streams import coalesced, path_moved


def _sse(*events: dict[str, object]) -> str:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


def test_anthropic_tool_input_fragments_are_joined() -> None:
    start = {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}}
    parts = ['{"file_path": "/work/chec', 'kout/a.py", "content": "x"}']
    deltas = [
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "input_json_delta", "partial_json": part},
        }
        for part in parts
    ]
    stop = {"type": "content_block_stop", "index": 0}
    text = coalesced(_sse(start, *deltas, stop))
    assert "/work/checkout/a.py" in text
    events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
    assert [e["type"] for e in events] == [
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
    ]
    assert events[1]["delta"]["partial_json"] == "".join(parts)


def test_chat_completion_arguments_are_joined_and_other_text_is_kept() -> None:
    first = {
        "choices": [
            {
                "index": 0,
                "delta": {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "c1",
                            "function": {"name": "write", "arguments": '{"path": "/wo'},
                        }
                    ]
                },
            }
        ]
    }
    second = {
        "choices": [
            {
                "index": 0,
                "delta": {"tool_calls": [{"index": 0, "function": {"arguments": 'rk/a.py"}'}}]},
            }
        ]
    }
    text = coalesced(f"data: {json.dumps(first)}\n\ndata: {json.dumps(second)}\n\ndata: [DONE]\n\n")
    assert "/work/a.py" in text and "data: [DONE]" in text
    assert coalesced('{"plain": "json"}') == '{"plain": "json"}'


OLD = "/home/runner/work/app/app"
NEW = '/tmp/a "quoted" \\ dir/app'


def test_a_moved_path_keeps_a_streamed_tool_input_valid_json() -> None:
    tool_input = json.dumps({"file_path": f"{OLD}/greeter.py", "content": "x"})
    stream = _sse(
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": part},
            }
            for part in (tool_input[:20], tool_input[20:])
        ),
        {
            "type": "content_block_delta",
            "index": 1,
            "delta": {"type": "text_delta", "text": f"I wrote {OLD}/greeter.py"},
        },
    )

    moved = path_moved(stream, OLD, NEW)

    events = [json.loads(line[5:]) for line in moved.splitlines() if line.startswith("data:")]
    (joined,) = [
        e["delta"]["partial_json"] for e in events if e.get("delta", {}).get("partial_json")
    ]
    assert json.loads(joined) == {"file_path": f"{NEW}/greeter.py", "content": "x"}
    assert events[-1]["delta"]["text"] == f"I wrote {NEW}/greeter.py"


def test_a_moved_path_keeps_chat_arguments_valid_json_in_a_whole_answer() -> None:
    arguments = json.dumps({"path": f"{OLD}/a.py"})
    answer = json.dumps(
        {"choices": [{"message": {"tool_calls": [{"function": {"arguments": arguments}}]}}]}
    )

    moved = json.loads(path_moved(answer, OLD, NEW))

    call = moved["choices"][0]["message"]["tool_calls"][0]
    assert json.loads(call["function"]["arguments"]) == {"path": f"{NEW}/a.py"}


def test_a_whole_answer_that_mentions_data_is_no_stream() -> None:
    answer = json.dumps({"content": [{"type": "text", "text": f"data: {OLD}/x"}]})
    moved = json.loads(path_moved(answer, OLD, NEW))
    assert moved["content"][0]["text"] == f"data: {NEW}/x"


def test_a_moved_path_in_text_that_is_no_json_is_replaced_as_it_is() -> None:
    assert path_moved(f"see {OLD}/x", OLD, NEW) == f"see {NEW}/x"
