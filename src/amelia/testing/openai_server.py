"""A scripted OpenAI-compatible API server on 127.0.0.1 for tests and demos.

It speaks both wire formats pydantic-ai uses: chat completions (`openai-chat:` and
`openrouter:` models) and the Responses API (`openai:` models), streamed as SSE or not.
Each request consumes one turn of the script; every request is recorded.
"""

from __future__ import annotations

import itertools
import json
import socket
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from amelia.testing.local_server import LocalServer, QuietHandler

__all__ = [
    "ARGUMENT_PIECE_CHARS",
    "END_OF_SCRIPT",
    "Billed",
    "Fault",
    "RecordedRequest",
    "Script",
    "ScriptFunction",
    "ScriptItem",
    "ScriptedOpenAIServer",
    "TextItem",
    "ToolCallItem",
    "Turn",
    "billed",
    "drop_connection",
    "fault",
    "stall",
    "text",
    "tool_call",
]


END_OF_SCRIPT = "end of script"
ARGUMENT_PIECE_CHARS = 8
"""Tool call arguments are streamed in pieces this long, as real servers split them."""

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_denied",
    404: "not_found_error",
    429: "rate_limit_exceeded",
    500: "server_error",
    503: "server_error",
}
_ERROR_CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded"}


@dataclass(frozen=True)
class TextItem:
    """Assistant text."""

    text: str


@dataclass(frozen=True)
class ToolCallItem:
    """A function call; `arguments` is the JSON string sent on the wire."""

    name: str
    arguments: str
    id: str | None = None


@dataclass(frozen=True)
class Fault:
    """A failure: an HTTP error reply, a stall before the rest of the turn, or a dropped socket."""

    kind: Literal["http", "stall", "drop"]
    status: int = 500
    message: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class Billed:
    """Not content: the output tokens the turn's usage reports (what the client prices it at)."""

    output_tokens: int


ScriptItem = TextItem | ToolCallItem | Fault | Billed


def text(content: str) -> TextItem:
    return TextItem(content)


def tool_call(name: str, args: Mapping[str, Any] | str, id: str | None = None) -> ToolCallItem:
    arguments = args if isinstance(args, str) else json.dumps(dict(args))
    return ToolCallItem(name=name, arguments=arguments, id=id)


def billed(output_tokens: int) -> Billed:
    """Make the turn's usage report `output_tokens` output tokens (e.g. a costly turn)."""
    return Billed(output_tokens)


def fault(status: int = 500, message: str | None = None) -> Fault:
    """Reply with HTTP `status` and OpenAI's error JSON (429, 500, 401, 503, …)."""
    return Fault(kind="http", status=status, message=message or f"scripted error {status}")


def stall(seconds: float) -> Fault:
    """Wait `seconds` (or until the server stops) before answering the rest of the turn."""
    return Fault(kind="stall", seconds=seconds)


def drop_connection() -> Fault:
    """Close the socket: mid-stream after the items before it, or before any reply."""
    return Fault(kind="drop")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def stream(self) -> bool:
        return isinstance(self.body, dict) and bool(self.body.get("stream"))


Turn = Sequence[ScriptItem]
ScriptFunction = Callable[[RecordedRequest], Turn]
Script = Sequence[Turn] | ScriptFunction


@dataclass
class _Usage:
    input_tokens: int
    output_tokens: int

    @classmethod
    def estimate(cls, body: Any, items: Sequence[ScriptItem]) -> _Usage:
        # Rough but deterministic: a token per four characters, at least one.
        prompt_chars = len(json.dumps(body)) if body is not None else 0
        output_chars = sum(
            len(item.text) if isinstance(item, TextItem) else len(item.arguments)
            for item in items
            if isinstance(item, TextItem | ToolCallItem)
        )
        billed = [item.output_tokens for item in items if isinstance(item, Billed)]
        output_tokens = billed[-1] if billed else max(1, output_chars // 4)
        return cls(max(1, prompt_chars // 4), output_tokens)


@dataclass
class _Ids:
    counter: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def next(self, prefix: str) -> str:
        with self.lock:
            return f"{prefix}_{next(self.counter):04d}"


class _DroppedConnection(Exception):
    """The script asked to drop the socket."""


class ScriptedOpenAIServer(LocalServer):
    """OpenAI-compatible server answering from a script; use as a context manager.

    `url` ends in `/v1`, ready for OPENAI_BASE_URL / OPENROUTER_BASE_URL.
    """

    def __init__(self, script: Script = (), model: str = "scripted-model") -> None:
        self._script_function: ScriptFunction | None = script if callable(script) else None
        self._turns: list[list[ScriptItem]] = [] if callable(script) else [list(t) for t in script]
        self._model = model
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = _Ids()
        self.requests: list[RecordedRequest] = []
        super().__init__(
            type("_BoundHandler", (_Handler,), {"owner": self}), name="scripted-openai"
        )

    # -- lifecycle -------------------------------------------------------------------------

    def stop(self) -> None:
        self._stopping.set()  # wakes a reply that waits out a scripted delay
        super().stop()

    @property
    def url(self) -> str:
        """Base URL for OPENAI_BASE_URL / OPENROUTER_BASE_URL, ending in `/v1`."""
        return f"{super().url}/v1"

    @property
    def remaining_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    def add_turns(self, *turns: Turn) -> None:
        with self._lock:
            self._turns.extend(list(t) for t in turns)

    # -- script ----------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_turn(self, request: RecordedRequest) -> list[ScriptItem]:
        if self._script_function is not None:
            return list(self._script_function(request))
        with self._lock:
            if self._turns:
                return self._turns.pop(0)
        return [TextItem(END_OF_SCRIPT)]

    def _wait(self, seconds: float) -> None:
        self._stopping.wait(seconds)

    def _new_id(self, prefix: str) -> str:
        return self._ids.next(prefix)


class _Handler(QuietHandler):
    owner: ScriptedOpenAIServer

    def do_GET(self) -> None:
        self._record(None)
        self._send_error_json(404, f"Unknown path: GET {self.path}", "not_found_error")

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except json.JSONDecodeError:
            body = raw.decode("utf-8", errors="replace")
        request = self._record(body)
        path = self.path.split("?", 1)[0]
        if path == "/v1/chat/completions":
            self._answer(request, _ChatWriter)
        elif path == "/v1/responses":
            self._answer(request, _ResponsesWriter)
        else:
            self._send_error_json(
                404,
                f"Unknown path: POST {path}. This server answers POST /v1/chat/completions "
                "and POST /v1/responses.",
                "not_found_error",
            )

    def _record(self, body: Any) -> RecordedRequest:
        request = RecordedRequest(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        self.owner._record(request)
        return request

    def _answer(self, request: RecordedRequest, writer_class: type[_Writer]) -> None:
        items = self.owner._next_turn(request)
        model = request.body.get("model") if isinstance(request.body, dict) else None
        writer = writer_class(self, str(model or self.owner._model), items, request)
        try:
            if request.stream:
                writer.stream()
            else:
                writer.complete()
        except (_DroppedConnection, BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                return

    # -- low-level writes --------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_error_json(self, status: int, message: str, error_type: str | None = None) -> None:
        payload = {
            "error": {
                "message": message,
                "type": error_type or _ERROR_TYPES.get(status, "server_error"),
                "param": None,
                "code": _ERROR_CODES.get(status),
            }
        }
        self._send_json(status, payload)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        # Chunked, so a dropped socket is an incomplete body the client notices.
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def _sse(self, data: Any, event: str | None = None) -> None:
        chunk = "" if event is None else f"event: {event}\n"
        chunk += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
        encoded = chunk.encode()
        self.wfile.write(f"{len(encoded):x}\r\n".encode() + encoded + b"\r\n")
        self.wfile.flush()

    def _end_sse(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class _Writer(ABC):
    """Turns one scripted turn into one reply in a particular wire format."""

    def __init__(
        self, handler: _Handler, model: str, items: list[ScriptItem], request: RecordedRequest
    ) -> None:
        self.handler = handler
        self.model = model
        self.items = items
        self.request = request
        self.owner = handler.owner
        self.created = int(time.time())

    def _content_items(self) -> list[TextItem | ToolCallItem]:
        return [i for i in self.items if isinstance(i, TextItem | ToolCallItem)]

    def _usage(self) -> _Usage:
        return _Usage.estimate(self.request.body, self.items)

    def _pre_reply_faults(self) -> bool:
        """Apply faults that come before any reply; True when the reply is already sent.

        An HTTP fault anywhere in a turn makes the whole reply that error. In a streamed
        turn, stalls and drops after the first content item happen mid-stream instead.
        """
        has_http_fault = any(isinstance(i, Fault) and i.kind == "http" for i in self.items)
        for item in self.items:
            if isinstance(item, Billed):
                continue
            if not isinstance(item, Fault):
                if self.request.stream and not has_http_fault:
                    return False
                continue
            if item.kind == "http":
                self.handler._send_error_json(item.status, item.message)
                return True
            if item.kind == "stall":
                self.owner._wait(item.seconds)
            elif item.kind == "drop":
                raise _DroppedConnection
        return False

    def complete(self) -> None:
        if self._pre_reply_faults():
            return
        self.handler._send_json(200, self.completion())

    def stream(self) -> None:
        if self._pre_reply_faults():
            return
        self.handler._start_sse()
        self.stream_events()
        self.handler._end_sse()

    def _walk(self) -> Iterator[TextItem | ToolCallItem]:
        """Content items in order, applying stalls and drops that sit between them."""
        started = False
        for item in self.items:
            if isinstance(item, Billed):
                continue
            if isinstance(item, Fault):
                if not started:
                    continue  # already applied before the reply
                if item.kind == "stall":
                    self.owner._wait(item.seconds)
                elif item.kind == "drop":
                    raise _DroppedConnection
                continue
            started = True
            yield item

    @abstractmethod
    def completion(self) -> dict[str, Any]:
        """The whole reply as one JSON object."""

    @abstractmethod
    def stream_events(self) -> None:
        """The reply as SSE events, after the 200 headers are sent."""


def _pieces(value: str) -> list[str]:
    return [value[i : i + ARGUMENT_PIECE_CHARS] for i in range(0, len(value), ARGUMENT_PIECE_CHARS)]


class _ChatWriter(_Writer):
    """`POST /v1/chat/completions`. Every reply carries `provider` for OpenRouter clients."""

    def _base(self, object_type: str, reply_id: str) -> dict[str, Any]:
        return {
            "id": reply_id,
            "object": object_type,
            "created": self.created,
            "model": self.model,
            "provider": "scripted",
            "system_fingerprint": None,
        }

    def _usage_json(self) -> dict[str, Any]:
        usage = self._usage()
        return {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
        }

    def _finish_reason(self) -> str:
        has_calls = any(isinstance(i, ToolCallItem) for i in self.items)
        return "tool_calls" if has_calls else "stop"

    def completion(self) -> dict[str, Any]:
        items = self._content_items()
        texts = [i.text for i in items if isinstance(i, TextItem)]
        calls = [
            {
                "id": call.id or self.owner._new_id("call"),
                "type": "function",
                "function": {"name": call.name, "arguments": call.arguments},
            }
            for call in items
            if isinstance(call, ToolCallItem)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": "".join(texts) or None}
        if calls:
            message["tool_calls"] = calls
        return {
            **self._base("chat.completion", self.owner._new_id("chatcmpl")),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": self._finish_reason(),
                    "logprobs": None,
                }
            ],
            "usage": self._usage_json(),
        }

    def stream_events(self) -> None:
        base = self._base("chat.completion.chunk", self.owner._new_id("chatcmpl"))

        def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
            choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
            self.handler._sse({**base, "choices": [choice]})

        chunk({"role": "assistant", "content": ""})
        call_index = 0
        for item in self._walk():
            if isinstance(item, TextItem):
                for word in _split_words(item.text):
                    chunk({"content": word})
                continue
            call_id = item.id or self.owner._new_id("call")
            opening = {
                "index": call_index,
                "id": call_id,
                "type": "function",
                "function": {"name": item.name, "arguments": ""},
            }
            chunk({"tool_calls": [opening]})
            for piece in _pieces(item.arguments):
                chunk({"tool_calls": [{"index": call_index, "function": {"arguments": piece}}]})
            call_index += 1
        final = {**base, "choices": [], "usage": self._usage_json()}
        chunk({}, self._finish_reason())
        self.handler._sse(final)
        self.handler._sse("[DONE]")


def _split_words(value: str) -> list[str]:
    """Split text into word-sized deltas that join back to the original."""
    words: list[str] = []
    current = ""
    for char in value:
        current += char
        if char == " ":
            words.append(current)
            current = ""
    if current or not words:
        words.append(current)
    return words


class _ResponsesWriter(_Writer):
    """`POST /v1/responses` (the OpenAI Responses API)."""

    def _usage_json(self) -> dict[str, Any]:
        usage = self._usage()
        return {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.input_tokens + usage.output_tokens,
        }

    def _response(
        self, response_id: str, status: str, output: list[dict[str, Any]]
    ) -> dict[str, Any]:
        return {
            "id": response_id,
            "object": "response",
            "created_at": self.created,
            "model": self.model,
            "status": status,
            "output": output,
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "metadata": {},
            "temperature": 1.0,
            "top_p": 1.0,
            "text": {"format": {"type": "text"}},
            "usage": self._usage_json() if status == "completed" else None,
        }

    def _message_item(self, item_id: str, content: str, status: str) -> dict[str, Any]:
        parts = [{"type": "output_text", "text": content, "annotations": []}] if content else []
        return {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": status,
            "content": parts,
        }

    def _call_item(
        self, item: ToolCallItem, item_id: str, call_id: str, arguments: str, status: str
    ) -> dict[str, Any]:
        return {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": item.name,
            "arguments": arguments,
            "status": status,
        }

    def completion(self) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        for item in self._content_items():
            if isinstance(item, TextItem):
                output.append(self._message_item(self.owner._new_id("msg"), item.text, "completed"))
            else:
                call_id = item.id or self.owner._new_id("call")
                item_id = self.owner._new_id("fc")
                output.append(self._call_item(item, item_id, call_id, item.arguments, "completed"))
        return self._response(self.owner._new_id("resp"), "completed", output)

    def stream_events(self) -> None:
        sequence = itertools.count()
        response_id = self.owner._new_id("resp")

        def emit(event_type: str, **fields: Any) -> None:
            payload = {"type": event_type, "sequence_number": next(sequence), **fields}
            self.handler._sse(payload, event=event_type)

        emit("response.created", response=self._response(response_id, "in_progress", []))
        emit("response.in_progress", response=self._response(response_id, "in_progress", []))
        output: list[dict[str, Any]] = []
        for index, item in enumerate(self._walk()):
            if isinstance(item, TextItem):
                done = self._stream_message(emit, index, item)
            else:
                done = self._stream_call(emit, index, item)
            output.append(done)
        emit("response.completed", response=self._response(response_id, "completed", output))

    def _stream_message(
        self, emit: Callable[..., None], index: int, item: TextItem
    ) -> dict[str, Any]:
        item_id = self.owner._new_id("msg")
        emit(
            "response.output_item.added",
            output_index=index,
            item=self._message_item(item_id, "", "in_progress"),
        )
        part = {"type": "output_text", "text": "", "annotations": []}
        where = {"item_id": item_id, "output_index": index, "content_index": 0}
        emit("response.content_part.added", part=part, **where)
        for word in _split_words(item.text):
            emit("response.output_text.delta", delta=word, logprobs=[], **where)
        emit("response.output_text.done", text=item.text, logprobs=[], **where)
        emit("response.content_part.done", part={**part, "text": item.text}, **where)
        done = self._message_item(item_id, item.text, "completed")
        emit("response.output_item.done", output_index=index, item=done)
        return done

    def _stream_call(
        self, emit: Callable[..., None], index: int, item: ToolCallItem
    ) -> dict[str, Any]:
        item_id = self.owner._new_id("fc")
        call_id = item.id or self.owner._new_id("call")
        opening = self._call_item(item, item_id, call_id, "", "in_progress")
        emit("response.output_item.added", output_index=index, item=opening)
        for piece in _pieces(item.arguments):
            emit(
                "response.function_call_arguments.delta",
                item_id=item_id,
                output_index=index,
                delta=piece,
            )
        emit(
            "response.function_call_arguments.done",
            item_id=item_id,
            output_index=index,
            name=item.name,
            arguments=item.arguments,
        )
        done = self._call_item(item, item_id, call_id, item.arguments, "completed")
        emit("response.output_item.done", output_index=index, item=done)
        return done
