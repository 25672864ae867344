"""A scripted Anthropic Messages API on 127.0.0.1, for the real clients in tests and demos.

    with ScriptedAnthropicServer(
        script=[[text("I will run it"), tool_use("Bash", {"command": "ls"})], [text("done")]]
    ) as server:
        env["ANTHROPIC_BASE_URL"] = server.url

`POST /v1/messages` answers streaming (SSE) and non-streaming requests from the script; every
request is recorded in `.requests`. Faults: `api_error(529)` (Anthropic's error JSON),
`stall(seconds, then=…)`, `dropped(…)` (connection closed mid-stream). Once the script has
run out, the server answers a plain "end of script" turn instead of hanging.

Side requests of the Claude Code CLI (measured with the CLI 2.1.330 bundled in
claude-agent-sdk 0.2.187) do not consume the script:

- `HEAD /api/hello` once at start (a reachability check, user-agent Bun): answered 200.
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (ClaudeCliDriver sets it) turns it off.
- Every main-conversation call is `POST /v1/messages?beta=true`, streaming, with the
  `tools` list (only the tools left by `--tools`), `max_tokens` 128000 and the model
  `claude-opus-5-5` unless one is set; the key arrives as `x-api-key`.
- In SDK (non-interactive) runs no title/summary calls and no `count_tokens` were seen, even
  without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC. A tool-less call to a haiku model or with
  max_tokens < 4096 is answered "ok" as a side request; `count_tokens` gets an estimate;
  other paths get a 404 error JSON. `classify_request` decides; pass `classify=` to change it.
- After a dropped stream the CLI retries the same call once without streaming (even with
  CLAUDE_CODE_MAX_RETRIES=0), so `dropped(…)` followed by a turn recovers.
- With `tools=[]` (one-shot generation) the CLI sends no tools but max_tokens 128000 to the
  main model, so such a call still drives the script. With structured output it offers a
  `StructuredOutput` tool: script `tool_use("StructuredOutput", {...})`, then a text turn.
"""

from __future__ import annotations

import json
import math
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from amelia.testing.anthropic_script import (
    END_OF_SCRIPT,
    ContentBlock,
    Fault,
    RecordedRequest,
    Reply,
    RequestKind,
    ScriptFunction,
    TextBlock,
    ThinkingBlock,
    ToolUseBlock,
    Turn,
    api_error,
    as_turn,
    dropped,
    reply,
    stall,
    text,
    thinking,
    tool_use,
)
from amelia.testing.local_server import LocalServer, QuietHandler

__all__ = [
    "Fault",
    "RecordedRequest",
    "Reply",
    "ScriptedAnthropicServer",
    "Turn",
    "api_error",
    "classify_request",
    "dropped",
    "reply",
    "stall",
    "text",
    "thinking",
    "tool_use",
]

SIDE_REPLY_TEXT = "ok"
"""What side requests (titles, summaries, quota checks) get as their answer."""

SIDE_MAX_TOKENS = 4096
"""A tool-less request asking for fewer tokens than this is a client's helper call."""

_TOOL_INPUT_PIECES = 3


def classify_request(method: str, path: str, body: dict[str, Any] | None) -> RequestKind:
    """Tell the agent's main conversation apart from a client's helper calls.

    The main conversation of an agent offers tools, or (one-shot generation without tools)
    asks for a long answer from the main model. The CLI's helper calls (session titles,
    summaries, quota probes) send no tools, go to a small model or ask for few tokens.
    """
    route = path.split("?", 1)[0].rstrip("/")
    if method == "POST" and route == "/v1/messages/count_tokens":
        return "count_tokens"
    if method != "POST" or route != "/v1/messages" or body is None:
        return "other"
    if body.get("tools"):
        return "main"
    max_tokens = body.get("max_tokens")
    small_answer = isinstance(max_tokens, int) and max_tokens < SIDE_MAX_TOKENS
    small_model = "haiku" in str(body.get("model", "")).lower()
    return "side" if small_answer or small_model else "main"


def _estimate_tokens(body: dict[str, Any] | None) -> int:
    return max(1, math.ceil(len(json.dumps(body or {})) / 4))


class _Script:
    """The turns still to play, consumed by main requests only (thread-safe)."""

    def __init__(self, script: Sequence[Turn] | ScriptFunction) -> None:
        self._lock = threading.Lock()
        self._function: ScriptFunction | None = None
        self._turns: list[Reply | Fault] = []
        if callable(script):
            self._function = script
        else:
            self._turns = [as_turn(turn) for turn in script]
        self._repeats_left: int | None = None

    def next_turn(self, request: RecordedRequest) -> Reply | Fault:
        if self._function is not None:
            return as_turn(self._function(request))
        with self._lock:
            if not self._turns:
                return END_OF_SCRIPT
            turn = self._turns[0]
            if isinstance(turn, Fault) and turn.times != 1:
                if turn.times is None:
                    return turn
                if self._repeats_left is None:
                    self._repeats_left = turn.times
                self._repeats_left -= 1
                if self._repeats_left > 0:
                    return turn
                self._repeats_left = None
            self._turns.pop(0)
            return turn

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._turns)


class ScriptedAnthropicServer(LocalServer):
    """The Anthropic Messages API, answered from a script, on an ephemeral local port."""

    def __init__(
        self,
        script: Sequence[Turn] | ScriptFunction = (),
        *,
        classify: Callable[[str, str, dict[str, Any] | None], RequestKind] = classify_request,
    ) -> None:
        self._script = _Script(script)
        self._classify = classify
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._main_count = 0
        self._stopping = threading.Event()
        super().__init__(
            type("_BoundHandler", (_Handler,), {"owner": self}), name="scripted-anthropic"
        )

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._lock:
            return list(self._requests)

    @property
    def main_requests(self) -> list[RecordedRequest]:
        """The requests that drove the script (the agent's main conversation)."""
        return [request for request in self.requests if request.kind == "main"]

    @property
    def turns_remaining(self) -> int:
        """Scripted turns not played yet (0 for a script function)."""
        return self._script.remaining

    def stop(self) -> None:
        self._stopping.set()  # wakes a reply that waits out a scripted delay
        super().stop()

    def _record(
        self, method: str, path: str, headers: dict[str, str], body: dict[str, Any] | None
    ) -> RecordedRequest:
        kind = self._classify(method, path, body)
        with self._lock:
            main_index = None
            if kind == "main":
                main_index = self._main_count
                self._main_count += 1
            request = RecordedRequest(
                method=method,
                path=path,
                headers=headers,
                body=body,
                kind=kind,
                main_index=main_index,
            )
            self._requests.append(request)
        return request

    def _wait(self, seconds: float) -> bool:
        """Sleep, but wake when the server stops; True when the server is stopping."""
        return self._stopping.wait(seconds) if seconds > 0 else self._stopping.is_set()


class _Handler(QuietHandler):
    owner: ScriptedAnthropicServer

    def do_POST(self) -> None:
        self._handle("POST")

    def do_GET(self) -> None:
        self._handle("GET")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_PUT(self) -> None:
        self._handle("PUT")

    def do_DELETE(self) -> None:
        self._handle("DELETE")

    def _handle(self, method: str) -> None:
        owner = self.owner
        body = self._read_json_body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        request = owner._record(method, self.path, headers, body)
        if request.kind == "other":
            if method == "HEAD":
                self._send_json(200, None)
                return
            self._send_error(
                404, "not_found_error", f"{method} {self.path.split('?', 1)[0]} is not scripted"
            )
            return
        if request.kind == "count_tokens":
            self._send_json(200, {"input_tokens": _estimate_tokens(body)})
            return
        assert body is not None
        if request.kind == "side":
            turn: Reply | Fault = Reply(blocks=(TextBlock(text=SIDE_REPLY_TEXT),))
        else:
            turn = owner._script.next_turn(request)
        if owner._wait(turn.delay_seconds):
            self.close_connection = True
            return
        if isinstance(turn, Fault):
            error_headers = {}
            if turn.retry_after_seconds is not None:
                error_headers["retry-after"] = str(turn.retry_after_seconds)
            self._send_error(turn.status, turn.error_type, turn.message, error_headers)
            return
        model = str(body.get("model", "claude-scripted"))
        if body.get("stream"):
            self._stream(turn, model, body)
        elif turn.drop_after_blocks is not None:
            # A non-streaming request to a dropped turn loses its connection unanswered.
            self.close_connection = True
        else:
            self._send_json(200, _message_json(turn, model, body))

    def _read_json_body(self) -> dict[str, Any] | None:
        length = int(self.headers.get("content-length") or 0)
        if length <= 0:
            return None
        raw = self.rfile.read(length)
        try:
            parsed = json.loads(raw)
        except ValueError:
            return None
        return parsed if isinstance(parsed, dict) else None

    def _send_json(
        self, status: int, payload: dict[str, Any] | None, headers: dict[str, str] | None = None
    ) -> None:
        data = b"" if payload is None else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _send_error(
        self, status: int, error_type: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        payload = {"type": "error", "error": {"type": error_type, "message": message}}
        self._send_json(status, payload, headers)

    def _stream(self, turn: Reply, model: str, body: dict[str, Any]) -> None:
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.send_header("request-id", f"req_{uuid.uuid4().hex[:24]}")
        self.end_headers()
        for event in _stream_events(turn, model, body):
            if event is None:
                # Dropped mid-stream: end without the terminating chunk, so the client sees
                # an incomplete body rather than a clean end of stream.
                self.close_connection = True
                self.wfile.flush()
                return
            name, payload = event
            chunk = f"event: {name}\ndata: {json.dumps(payload)}\n\n".encode()
            self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def _usage(body: dict[str, Any], output_tokens: int) -> dict[str, Any]:
    return {
        "input_tokens": _estimate_tokens(body),
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _output_tokens(turn: Reply) -> int:
    if turn.output_tokens is not None:
        return turn.output_tokens
    return max(1, math.ceil(len(json.dumps([b.model_dump() for b in turn.blocks])) / 4))


def _block_json(block: ContentBlock) -> dict[str, Any]:
    if isinstance(block, ThinkingBlock):
        return {
            "type": "thinking",
            "thinking": block.thinking,
            "signature": block.effective_signature(),
        }
    return block.model_dump()


def _message_json(turn: Reply, model: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"msg_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [_block_json(block) for block in turn.blocks],
        "stop_reason": turn.effective_stop_reason(),
        "stop_sequence": None,
        "usage": _usage(body, _output_tokens(turn)),
    }


def _split(value: str, pieces: int) -> list[str]:
    size = max(1, math.ceil(len(value) / pieces))
    return [value[start : start + size] for start in range(0, len(value), size)] or [""]


def _block_events(index: int, block: ContentBlock) -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(block, TextBlock):
        start: dict[str, Any] = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": piece} for piece in _split(block.text, 2)]
    elif isinstance(block, ThinkingBlock):
        start = {"type": "thinking", "thinking": "", "signature": ""}
        deltas = [
            {"type": "thinking_delta", "thinking": piece} for piece in _split(block.thinking, 2)
        ]
        deltas.append({"type": "signature_delta", "signature": block.effective_signature()})
    else:
        assert isinstance(block, ToolUseBlock)
        start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
        deltas = [
            {"type": "input_json_delta", "partial_json": piece}
            for piece in _split(json.dumps(block.input), _TOOL_INPUT_PIECES)
        ]
    yield (
        "content_block_start",
        {"type": "content_block_start", "index": index, "content_block": start},
    )
    for delta in deltas:
        yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
    yield "content_block_stop", {"type": "content_block_stop", "index": index}


def _stream_events(
    turn: Reply, model: str, body: dict[str, Any]
) -> Iterator[tuple[str, dict[str, Any]] | None]:
    """The SSE events of one reply; None marks where a dropped connection is cut."""
    message = _message_json(turn, model, body)
    usage = message["usage"]
    start_message = {
        **message,
        "content": [],
        "stop_reason": None,
        "usage": {**usage, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": start_message}
    for index, block in enumerate(turn.blocks):
        if turn.drop_after_blocks is not None and index >= turn.drop_after_blocks:
            yield None
            return
        yield from _block_events(index, block)
    if turn.drop_after_blocks is not None:
        yield None
        return
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": usage["output_tokens"]},
        },
    )
    yield "message_stop", {"type": "message_stop"}
