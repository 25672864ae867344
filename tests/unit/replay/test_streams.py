"""Fragments of one streamed block are joined, so a path split between them is whole."""

from __future__ import annotations

import json

from amelia.replay.streams import coalesced


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
