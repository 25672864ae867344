"""pydantic-ai messages and errors → AgenticMessage, the driver's only output type."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from pydantic_ai.exceptions import (
    AgentRunError,
    ModelAPIError,
    ModelHTTPError,
    ModelTimeoutError,
    RunTimedOut,
    UsageLimitExceeded,
)
from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    ToolReturnPart,
)

from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.text import one_line

__all__ = ["OUTPUT_TOOL_NAME", "MessageMapper", "error_reason"]


OUTPUT_TOOL_NAME = "final_result"
"""The tool through which a model returns a structured (schema) result; not a user tool."""

_MAX_REASON_CHARS = 400


class MessageMapper:
    """Maps each part of a growing message history once, in order.

    The history only grows at its end, so each call looks at the messages from the last one
    it saw onwards (the last may have gained parts), not at the whole history again: the
    cost per call stays flat however long the run.
    """

    def __init__(self) -> None:
        self._seen: set[int] = set()
        self._start = 0
        """Index of the first message the next call looks at."""

    def mark_seen(self, messages: Sequence[ModelMessage]) -> None:
        for message in messages:
            self._seen.update(id(part) for part in message.parts)
        self._start = max(len(messages) - 1, 0)

    def new_messages(self, messages: Sequence[ModelMessage]) -> Iterator[AgenticMessage]:
        if len(messages) < self._start:
            self._start = 0  # not the history seen so far: look at all of it
        for message in messages[self._start :]:
            for part in message.parts:
                if id(part) in self._seen:
                    continue
                self._seen.add(id(part))
                mapped = (
                    _map_response_part(part)
                    if isinstance(message, ModelResponse)
                    else _map_request_part(part)
                )
                if mapped is not None:
                    yield mapped
        self._start = max(len(messages) - 1, 0)


def _map_response_part(part: Any) -> AgenticMessage | None:
    if isinstance(part, TextPart | ThinkingPart):
        if not part.content.strip():
            return None
        return AgenticMessage(type=AgenticMessageType.THINKING, content=part.content)
    if isinstance(part, ToolCallPart) and part.tool_name != OUTPUT_TOOL_NAME:
        return AgenticMessage(
            type=AgenticMessageType.TOOL_CALL,
            tool_name=part.tool_name,
            tool_input=part.args_as_dict(),
            tool_call_id=part.tool_call_id,
        )
    return None


def _map_request_part(part: Any) -> AgenticMessage | None:
    if isinstance(part, ToolReturnPart) and part.tool_name != OUTPUT_TOOL_NAME:
        return AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name=part.tool_name,
            tool_output=part.model_response_str(wrap_if_error=False),
            tool_call_id=part.tool_call_id,
            is_error=part.outcome != "success",
        )
    if (
        isinstance(part, RetryPromptPart)
        and part.tool_name is not None
        and part.tool_name != OUTPUT_TOOL_NAME
    ):
        # Arguments that failed validation, or a tool the model invented.
        return AgenticMessage(
            type=AgenticMessageType.TOOL_RESULT,
            tool_name=part.tool_name,
            tool_output=part.model_response(),
            tool_call_id=part.tool_call_id,
            is_error=True,
        )
    return None


def _http_detail(error: ModelHTTPError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if body.get("message"):
            return str(body["message"])
    return str(body) if body else ""


def error_reason(error: BaseException) -> str:
    """One line naming what went wrong (with the HTTP status when there is one)."""
    return one_line(_describe(error), limit=_MAX_REASON_CHARS)


def _describe(error: BaseException) -> str:
    if isinstance(error, ModelHTTPError):
        detail = _http_detail(error)
        reason = f"Model API error: HTTP {error.status_code} from {error.model_name}"
        return f"{reason}: {detail}" if detail else reason
    if isinstance(error, ModelTimeoutError | RunTimedOut | TimeoutError):
        return f"Model API timed out: {error}" if str(error) else "Model API timed out"
    if isinstance(error, UsageLimitExceeded):
        return f"Turn limit reached: {error}"
    if isinstance(error, ModelAPIError):
        return f"Model API error ({type(error).__name__}): {error}"
    if isinstance(error, AgentRunError):
        return f"Model run failed ({type(error).__name__}): {error}"
    return f"{type(error).__name__}: {error}"
