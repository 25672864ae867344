"""Folds one driver call's message stream into the execution state.

Every agent runs the same loop: tool calls and results are appended to the state, usage is
counted for the job summary, and each message becomes the `StreamEvent` sinks receive.
"""

from __future__ import annotations

import time
from typing import Any

from amelia.core.state import AgentUsage, ExecutionState, ToolCall, ToolResult
from amelia.core.types import StreamEvent
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.errors import AgentRunFailedError, BudgetReachedError

__all__ = ["AgentRun", "merge_usage"]


def merge_usage(usages: tuple[AgentUsage, ...], extra: AgentUsage) -> tuple[AgentUsage, ...]:
    """Add `extra` to the entry of the same agent, keeping the order agents first ran in."""
    merged: list[AgentUsage] = []
    found = False
    for usage in usages:
        if usage.agent == extra.agent:
            found = True
            usage = AgentUsage(
                agent=usage.agent,
                turns=usage.turns + extra.turns,
                tool_calls=usage.tool_calls + extra.tool_calls,
                tool_errors=usage.tool_errors + extra.tool_errors,
                input_tokens=usage.input_tokens + extra.input_tokens,
                output_tokens=usage.output_tokens + extra.output_tokens,
                cost_usd=usage.cost_usd + extra.cost_usd,
                duration_ms=usage.duration_ms + extra.duration_ms,
                model=extra.model or usage.model,
            )
        merged.append(usage)
    if not found:
        merged.append(extra)
    return tuple(merged)


class AgentRun:
    """State of one `execute_agentic` call, as seen by the agent that made it."""

    def __init__(self, agent: str, workflow_id: str, state: ExecutionState) -> None:
        self.agent = agent
        self.workflow_id = workflow_id
        self._base = state
        self._tool_calls: list[ToolCall] = list(state.tool_calls)
        self._tool_results: list[ToolResult] = list(state.tool_results)
        self._calls, self._results = state.tool_calls, state.tool_results
        """`_tool_calls` and `_tool_results` as the tuples the last state holds."""
        self._inputs_by_call: dict[str, dict[str, Any]] = {}
        self._usage = AgentUsage(agent=agent)
        self._started = time.monotonic()
        self._changes: dict[str, Any] = {}
        self.state = state
        self.result: AgenticMessage | None = None

    def apply(self, message: AgenticMessage) -> tuple[ExecutionState, StreamEvent]:
        """Record `message`; return the updated state and the event for the sinks."""
        if message.type == AgenticMessageType.TOOL_CALL:
            self._record_call(message)
        elif message.type == AgenticMessageType.TOOL_RESULT:
            self._record_result(message)
        elif message.type == AgenticMessageType.RESULT:
            self._record_final(message)
        self.state = self._snapshot()
        return self.state, message.to_stream_event(agent=self.agent, workflow_id=self.workflow_id)

    def update(self, **changes: Any) -> ExecutionState:
        """Set agent-specific fields on the current state and on every later one."""
        validated = ExecutionState.model_validate(changes)
        self._changes.update({name: getattr(validated, name) for name in changes})
        self.state = self._snapshot()
        return self.state

    def _snapshot(self) -> ExecutionState:
        """The state after the messages so far. A copy that shares every unchanged field:
        `evolve` (a dump and a validation of the whole state) per streamed message cost
        time in proportion to every tool call already in the state."""
        if len(self._calls) != len(self._tool_calls):
            self._calls = tuple(self._tool_calls)
        if len(self._results) != len(self._tool_results):
            self._results = tuple(self._tool_results)
        return self._base.model_copy(
            update={
                "tool_calls": self._calls,
                "tool_results": self._results,
                "usage": merge_usage(self._base.usage, self._usage),
                "last_agent": self.agent,
                **self._changes,
            }
        )

    def check_finished(self) -> None:
        """Raise `AgentRunFailedError` unless the driver ended with a successful result;
        `BudgetReachedError` when it stopped the run at its spending limit."""
        if self.result is None:
            raise AgentRunFailedError(self.agent, "the driver ended without a final answer")
        if self.result.budget_reached:
            raise BudgetReachedError(self.agent, self.result.content or "spending limit reached")
        if self.result.is_error:
            raise AgentRunFailedError(
                self.agent, self.result.content or "the driver reported an error"
            )

    def _record_call(self, message: AgenticMessage) -> None:
        tool_input = dict(message.tool_input or {})
        if message.tool_call_id:
            self._inputs_by_call[message.tool_call_id] = tool_input
        self._tool_calls.append(
            ToolCall(
                id=message.tool_call_id,
                agent=self.agent,
                tool_name=message.tool_name or "unknown",
                tool_input=tool_input,
            )
        )
        self._usage = self._usage.model_copy(update={"tool_calls": self._usage.tool_calls + 1})

    def _record_result(self, message: AgenticMessage) -> None:
        call_input = self._inputs_by_call.get(message.tool_call_id or "")
        self._tool_results.append(
            ToolResult(
                call_id=message.tool_call_id,
                agent=self.agent,
                tool_name=message.tool_name or "unknown",
                output=message.tool_output or message.content or "",
                is_error=message.is_error,
                tool_input=call_input,
            )
        )
        if message.is_error:
            self._usage = self._usage.model_copy(
                update={"tool_errors": self._usage.tool_errors + 1}
            )

    def _record_final(self, message: AgenticMessage) -> None:
        self.result = message
        driver_usage = message.usage
        measured_ms = int((time.monotonic() - self._started) * 1000)
        self._usage = self._usage.model_copy(
            update={
                "turns": self._usage.turns + ((driver_usage and driver_usage.num_turns) or 1),
                "input_tokens": self._usage.input_tokens
                + ((driver_usage and driver_usage.input_tokens) or 0),
                "output_tokens": self._usage.output_tokens
                + ((driver_usage and driver_usage.output_tokens) or 0),
                "cost_usd": self._usage.cost_usd
                + ((driver_usage and driver_usage.cost_usd) or 0.0),
                "duration_ms": self._usage.duration_ms
                + ((driver_usage and driver_usage.duration_ms) or measured_ms),
                "model": (driver_usage and driver_usage.model) or self._usage.model,
            }
        )
