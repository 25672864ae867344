"""The script a ScriptedAnthropicServer plays: content blocks, turns and injected faults.

A script is a list of turns (each turn is what the model answers to one main request) or a
function from the recorded request to a turn. A turn is a list of blocks, a `Reply` (blocks
plus delivery options) or a `Fault`.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "END_OF_SCRIPT",
    "ContentBlock",
    "Fault",
    "RecordedRequest",
    "Reply",
    "RequestKind",
    "ScriptFunction",
    "StopReason",
    "TextBlock",
    "ThinkingBlock",
    "ToolUseBlock",
    "Turn",
    "api_error",
    "as_turn",
    "dropped",
    "reply",
    "stall",
    "text",
    "thinking",
    "tool_use",
]


def _new_tool_use_id() -> str:
    return f"toolu_{uuid.uuid4().hex[:24]}"


class TextBlock(BaseModel):
    """Visible text the model says."""

    model_config = ConfigDict(frozen=True)

    type: Literal["text"] = "text"
    text: str


class ThinkingBlock(BaseModel):
    """Extended thinking; the signature is opaque to clients but must be present."""

    model_config = ConfigDict(frozen=True)

    type: Literal["thinking"] = "thinking"
    thinking: str
    signature: str = ""

    def effective_signature(self) -> str:
        return self.signature or hashlib.sha256(self.thinking.encode()).hexdigest()


class ToolUseBlock(BaseModel):
    """A tool call; `id` defaults to a fresh `toolu_…` id."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_use"] = "tool_use"
    name: str
    input: dict[str, Any] = Field(default_factory=dict)
    id: str = Field(default_factory=_new_tool_use_id)


ContentBlock = TextBlock | ThinkingBlock | ToolUseBlock

StopReason = Literal["end_turn", "tool_use", "max_tokens", "stop_sequence", "refusal"]


class Reply(BaseModel):
    """One assistant message, with optional delivery faults (a stall, a dropped stream)."""

    model_config = ConfigDict(frozen=True)

    blocks: tuple[ContentBlock, ...]
    stop_reason: StopReason | None = None
    delay_seconds: float = 0.0
    """Wait this long before sending anything (a stalled upstream)."""
    drop_after_blocks: int | None = None
    """Close the connection after this many complete blocks, mid-message (streaming), or
    without any answer (non-streaming)."""
    output_tokens: int | None = Field(default=None, ge=1)
    """The output tokens its usage reports (what the client prices it at); None: about one
    per four characters of its blocks."""

    def effective_stop_reason(self) -> StopReason:
        if self.stop_reason is not None:
            return self.stop_reason
        has_tool_use = any(isinstance(block, ToolUseBlock) for block in self.blocks)
        return "tool_use" if has_tool_use else "end_turn"


_ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class Fault(BaseModel):
    """An HTTP error answer in Anthropic's error JSON shape.

    `times` main requests in a row get this answer (None: every request from now on), so a
    client's own retries meet the same fault.
    """

    model_config = ConfigDict(frozen=True)

    status: int
    error_type: str
    message: str
    times: int | None = Field(default=1, ge=1)
    delay_seconds: float = 0.0
    retry_after_seconds: int | None = None


Turn = Reply | Fault | Sequence[ContentBlock]


def text(content: str) -> TextBlock:
    """A text block: `text("I will run the tests")`."""
    return TextBlock(text=content)


def thinking(content: str, signature: str = "") -> ThinkingBlock:
    """A thinking block; a signature is made up when not given."""
    return ThinkingBlock(thinking=content, signature=signature)


def tool_use(
    name: str, tool_input: dict[str, Any] | None = None, id: str | None = None
) -> ToolUseBlock:
    """A tool call: `tool_use("Bash", {"command": "ls"})`."""
    if id is None:
        return ToolUseBlock(name=name, input=tool_input or {})
    return ToolUseBlock(name=name, input=tool_input or {}, id=id)


def reply(
    *blocks: ContentBlock, stop_reason: StopReason | None = None, output_tokens: int | None = None
) -> Reply:
    """A turn with an explicit stop reason (default: tool_use when a tool is called) and,
    optionally, the output tokens its usage reports (e.g. a costly turn)."""
    return Reply(blocks=blocks, stop_reason=stop_reason, output_tokens=output_tokens)


def api_error(
    status: int,
    message: str | None = None,
    *,
    times: int | None = 1,
    retry_after_seconds: int | None = None,
) -> Fault:
    """An error answer: 500 api_error, 529 overloaded_error, 401 authentication_error, …"""
    error_type = _ERROR_TYPES.get(status, "api_error")
    return Fault(
        status=status,
        error_type=error_type,
        message=message or f"Scripted {error_type} (HTTP {status})",
        times=times,
        retry_after_seconds=retry_after_seconds,
    )


def stall(seconds: float, then: Turn | None = None) -> Reply | Fault:
    """Wait `seconds` before answering `then` (default: a short text turn)."""
    turn = as_turn(then if then is not None else [text("stalled reply")])
    return turn.model_copy(update={"delay_seconds": seconds})


def dropped(*blocks: ContentBlock, after_blocks: int = 1) -> Reply:
    """A streamed reply whose connection is closed after `after_blocks` complete blocks."""
    return Reply(blocks=blocks or (text("this reply is cut off"),), drop_after_blocks=after_blocks)


def as_turn(turn: Turn) -> Reply | Fault:
    """Normalise a list of blocks into a Reply."""
    if isinstance(turn, Reply | Fault):
        return turn
    return Reply(blocks=tuple(turn))


END_OF_SCRIPT = Reply(blocks=(TextBlock(text="end of script"),), stop_reason="end_turn")
"""What the server answers once the script has run out, so a client never hangs."""

RequestKind = Literal["main", "side", "count_tokens", "other"]


class RecordedRequest(BaseModel):
    """One request as the server received it."""

    model_config = ConfigDict(frozen=True)

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None
    kind: RequestKind
    """main: drives the script; side: a helper call of the client (titles, summaries, …)."""
    main_index: int | None = None
    """Position among main requests (0 for the first), None for the others."""

    def system_text(self) -> str:
        """The system prompt as one string (it may be sent as a string or as blocks)."""
        system = (self.body or {}).get("system")
        if isinstance(system, str):
            return system
        if isinstance(system, list):
            return "\n".join(str(part.get("text", "")) for part in system if isinstance(part, dict))
        return ""


ScriptFunction = Callable[[RecordedRequest], Turn]
