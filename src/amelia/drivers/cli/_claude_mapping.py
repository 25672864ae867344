"""claude-agent-sdk messages → AgenticMessage, the only place that knows the SDK's shapes."""

from __future__ import annotations

import json
import re
from typing import Any

from claude_agent_sdk import (
    AssistantMessage,
    Message,
    ResultMessage,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverUsage
from amelia.text import one_line

BUDGET_SUBTYPE = "error_max_budget_usd"
"""The result subtype of a run the CLI stopped at `--max-budget-usd`."""
_FENCED_JSON = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


def tool_result_text(content: str | list[dict[str, Any]] | None) -> str:
    """A tool result's content as text: list content (text/image parts) joined by lines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for part in content:
        if part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        else:
            parts.append(f"[{part.get('type', 'content')}]")
    return "\n".join(parts)


def extract_json_text(text: str) -> str:
    """The JSON of an answer: a fenced ```json block if there is one, else the whole text."""
    match = _FENCED_JSON.search(text)
    return match.group(1).strip() if match else text.strip()


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) else None


def result_usage(
    result: ResultMessage, fallback_model: str | None, *, cost_before: float = 0.0
) -> DriverUsage:
    """Tokens, cost, time and turns of a finished run. The CLI reports a resumed session's
    cost since the session began: `cost_before` is what it had cost before this run."""
    usage = result.usage or {}
    total = result.total_cost_usd
    model = next(iter(result.model_usage), None) if result.model_usage else None
    return DriverUsage(
        input_tokens=_int_or_none(usage.get("input_tokens")),
        output_tokens=_int_or_none(usage.get("output_tokens")),
        cache_read_tokens=_int_or_none(usage.get("cache_read_input_tokens")),
        cache_creation_tokens=_int_or_none(usage.get("cache_creation_input_tokens")),
        cost_usd=None if total is None else max(total - cost_before, 0.0),
        duration_ms=result.duration_ms,
        num_turns=result.num_turns,
        model=model or fallback_model,
    )


def result_error_reason(result: ResultMessage, last_assistant_text: str | None) -> str:
    """One line saying why a run ended with an error result."""
    if result.subtype == "error_max_turns":
        return f"Claude Code stopped: maximum number of turns reached ({result.num_turns})"
    if result.subtype == BUDGET_SUBTYPE:
        spent = f" (${result.total_cost_usd:.4f} spent)" if result.total_cost_usd else ""
        return f"Claude Code stopped: spending limit reached{spent}"
    details = result.result or "; ".join(result.errors or []) or last_assistant_text or ""
    prefix = "Claude Code failed"
    if result.api_error_status is not None:
        prefix += f" (API HTTP {result.api_error_status})"
    elif result.subtype != "success":
        prefix += f" ({result.subtype})"
    return one_line(f"{prefix}: {details}" if details else prefix)


class MessageMapper:
    """Maps one run's SDK messages, remembering tool names by call id for the results."""

    def __init__(
        self, model: str | None = None, structured: bool = False, *, cost_before: float = 0.0
    ) -> None:
        self._tool_names: dict[str, str] = {}
        self._cost_before = cost_before
        self.session_cost: float | None = None
        """What the session had cost by the end of this run, as the CLI reports it."""
        self._structured = structured
        self.model = model
        self.session_id: str | None = None
        self.last_assistant_text: str | None = None
        self.tools: list[str] | None = None
        """The tools the CLI announced in its init message."""

    def map(self, message: Message) -> list[AgenticMessage]:
        if isinstance(message, SystemMessage):
            self._note_system(message)
            return []
        if isinstance(message, AssistantMessage):
            return self._map_assistant(message)
        if isinstance(message, UserMessage):
            return self._map_user(message)
        if isinstance(message, ResultMessage):
            return [self.map_result(message)]
        return []

    def _note_system(self, message: SystemMessage) -> None:
        if message.subtype != "init":
            return
        session_id = message.data.get("session_id")
        if isinstance(session_id, str):
            self.session_id = session_id
        model = message.data.get("model")
        if isinstance(model, str) and self.model is None:
            self.model = model
        tools = message.data.get("tools")
        if isinstance(tools, list):
            self.tools = [str(tool) for tool in tools]

    def _map_assistant(self, message: AssistantMessage) -> list[AgenticMessage]:
        if message.session_id:
            self.session_id = message.session_id
        if message.error is not None:
            # A synthetic message the CLI makes from a failed API call; the RESULT says why.
            return []
        mapped: list[AgenticMessage] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                self.last_assistant_text = block.text
                mapped.append(AgenticMessage(type=AgenticMessageType.THINKING, content=block.text))
            elif isinstance(block, ThinkingBlock):
                mapped.append(
                    AgenticMessage(type=AgenticMessageType.THINKING, content=block.thinking)
                )
            elif isinstance(block, ToolUseBlock):
                self._tool_names[block.id] = block.name
                mapped.append(
                    AgenticMessage(
                        type=AgenticMessageType.TOOL_CALL,
                        tool_name=block.name,
                        tool_input=block.input,
                        tool_call_id=block.id,
                    )
                )
        return mapped

    def _map_user(self, message: UserMessage) -> list[AgenticMessage]:
        if isinstance(message.content, str):
            return []
        return [
            AgenticMessage(
                type=AgenticMessageType.TOOL_RESULT,
                tool_name=self._tool_names.get(block.tool_use_id),
                tool_output=tool_result_text(block.content),
                tool_call_id=block.tool_use_id,
                is_error=bool(block.is_error),
            )
            for block in message.content
            if isinstance(block, ToolResultBlock)
        ]

    def map_result(self, result: ResultMessage) -> AgenticMessage:
        self.session_id = result.session_id or self.session_id
        usage = result_usage(result, self.model, cost_before=self._cost_before)
        self.session_cost = result.total_cost_usd
        if result.is_error:
            content = result_error_reason(result, self.last_assistant_text)
        elif self._structured and result.structured_output is not None:
            content = json.dumps(result.structured_output)
        elif self._structured and result.result:
            content = extract_json_text(result.result)
        else:
            content = result.result or ""
        return AgenticMessage(
            type=AgenticMessageType.RESULT,
            content=content,
            session_id=self.session_id,
            is_error=result.is_error,
            usage=usage,
            budget_reached=result.is_error and result.subtype == BUDGET_SUBTYPE,
        )

    def error_result(self, reason: str) -> AgenticMessage:
        """A RESULT for a run that ended without the CLI's own result (timeout, crash)."""
        return AgenticMessage(
            type=AgenticMessageType.RESULT,
            content=one_line(reason),
            session_id=self.session_id,
            is_error=True,
            usage=DriverUsage(model=self.model),
        )
