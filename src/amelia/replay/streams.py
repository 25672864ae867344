"""Recorded SSE answers with their fragments joined, so a path in them can be replaced.

A model streams a tool's input or its text in fragments (`input_json_delta`, `text_delta`,
Responses `*.delta` events, chat completions' `delta.content` and `tool_calls` arguments),
and a fragment boundary may fall inside a file path. `coalesced` joins the consecutive
fragments of one block into its first event: the client receives the same content in
fewer events, and a path is whole again.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["coalesced", "path_moved"]


def _fragment(data: dict[str, Any]) -> tuple[tuple[object, ...], list[Any], str] | None:
    """(what the fragment belongs to, the container holding it, its key), or None."""
    kind = data.get("type")
    if kind == "content_block_delta":
        delta = data.get("delta")
        if isinstance(delta, dict):
            for field in ("partial_json", "text", "thinking"):
                if isinstance(delta.get(field), str):
                    return (kind, data.get("index"), delta.get("type")), [delta], field
    if isinstance(kind, str) and kind.endswith(".delta") and isinstance(data.get("delta"), str):
        key = (kind, data.get("item_id"), data.get("output_index"), data.get("content_index"))
        return key, [data], "delta"
    choices = data.get("choices")
    if isinstance(choices, list) and len(choices) == 1 and isinstance(choices[0], dict):
        delta = choices[0].get("delta")
        if not isinstance(delta, dict) or choices[0].get("finish_reason"):
            return None
        calls = delta.get("tool_calls")
        if isinstance(calls, list) and len(calls) == 1 and isinstance(calls[0], dict):
            function = calls[0].get("function")
            if isinstance(function, dict) and isinstance(function.get("arguments"), str):
                return ("tool", calls[0].get("index")), [function], "arguments"
        if isinstance(delta.get("content"), str) and not calls:
            return ("content", choices[0].get("index")), [delta], "content"
    return None


def _events(text: str) -> list[list[str]]:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.split("\n"):
        if line == "":
            if current:
                blocks.append(current)
                current = []
        else:
            current.append(line)
    if current:
        blocks.append(current)
    return blocks


def coalesced(text: str) -> str:
    """`text` (an SSE stream) with consecutive fragments of one block joined; any other
    text as it is."""
    if "data:" not in text:
        return text
    out: list[tuple[list[str], dict[str, Any] | None]] = []
    open_key: tuple[object, ...] | None = None
    open_target: tuple[dict[str, Any], str] | None = None
    for block in _events(text):
        data_lines = [line for line in block if line.startswith("data:")]
        parsed: dict[str, Any] | None = None
        if len(data_lines) == 1:
            try:
                loaded = json.loads(data_lines[0][5:].strip())
                parsed = loaded if isinstance(loaded, dict) else None
            except json.JSONDecodeError:
                parsed = None
        found = None if parsed is None else _fragment(parsed)
        if found is not None and open_target is not None and found[0] == open_key:
            container, field = open_target
            container[field] += found[1][0][found[2]]
            continue
        out.append((block, parsed))
        if found is None:
            open_key, open_target = None, None
        else:
            open_key, open_target = found[0], (found[1][0], found[2])
    lines: list[str] = []
    for block, parsed in out:
        for line in block:
            if parsed is not None and line.startswith("data:"):
                lines.append("data: " + json.dumps(parsed))
            else:
                lines.append(line)
        lines.append("")
    return "\n".join(lines) + "\n"


def _json_spelling(text: str) -> str:
    """`text` as it appears inside a JSON string."""
    return json.dumps(text, ensure_ascii=False)[1:-1]


def _moved_in(value: Any, old: str, new: str) -> Any:
    """`value` (decoded JSON) with `old` replaced by `new` in every string; in a string that
    is itself JSON text (a tool call's input or arguments), as that text spells them."""
    if isinstance(value, str):
        if old not in value and _json_spelling(old) not in value:
            return value
        if value[:1] in "{[":
            try:
                json.loads(value)
            except json.JSONDecodeError:
                pass
            else:
                return value.replace(_json_spelling(old), _json_spelling(new))
        return value.replace(old, new)
    if isinstance(value, list):
        return [_moved_in(item, old, new) for item in value]
    if isinstance(value, dict):
        return {key: _moved_in(item, old, new) for key, item in value.items()}
    return value


def path_moved(text: str, old: str, new: str) -> str:
    """`text` (an answer: JSON, or an SSE stream of JSON events) with the path `old` replaced
    by `new` wherever a string holds it, fragments joined first (`coalesced`), each string
    spelled as JSON spells it: a path with a quote or a backslash keeps the JSON valid."""
    if not any(line.startswith("data:") for line in text.split("\n")):
        try:
            return json.dumps(_moved_in(json.loads(text), old, new), ensure_ascii=False)
        except json.JSONDecodeError:
            return text.replace(old, new)
    lines: list[str] = []
    for line in coalesced(text).split("\n"):
        if line.startswith("data:"):
            try:
                event = json.loads(line[5:].strip())
            except json.JSONDecodeError:
                lines.append(line.replace(old, new))
                continue
            line = "data: " + json.dumps(_moved_in(event, old, new), ensure_ascii=False)
        lines.append(line)
    return "\n".join(lines)
