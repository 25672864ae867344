"""The driver → agent boundary: AgenticMessage and the DriverInterface protocol.

Agents see only these types; every SDK type stays inside its driver.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from enum import StrEnum
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from amelia.core.types import StreamEvent, StreamEventType

__all__ = [
    "AgenticMessage",
    "AgenticMessageType",
    "DriverInterface",
    "DriverUsage",
    "GenerateResult",
]


class AgenticMessageType(StrEnum):
    """Types of messages yielded during agentic execution."""

    THINKING = "thinking"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    RESULT = "result"


_STREAM_EVENT_TYPES: dict[AgenticMessageType, StreamEventType] = {
    AgenticMessageType.THINKING: StreamEventType.CLAUDE_THINKING,
    AgenticMessageType.TOOL_CALL: StreamEventType.CLAUDE_TOOL_CALL,
    AgenticMessageType.TOOL_RESULT: StreamEventType.CLAUDE_TOOL_RESULT,
    AgenticMessageType.RESULT: StreamEventType.AGENT_OUTPUT,
}


class DriverUsage(BaseModel):
    """Tokens, cost and time of one driver call, as far as the driver knows them."""

    model_config = ConfigDict(frozen=True)

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_creation_tokens: int | None = None
    cost_usd: float | None = None
    duration_ms: int | None = None
    num_turns: int | None = None
    model: str | None = None


class AgenticMessage(BaseModel):
    """One step of an agentic run, the same for every driver."""

    model_config = ConfigDict(frozen=True)

    type: AgenticMessageType
    content: str | None = None
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    tool_output: str | None = None
    tool_call_id: str | None = None
    session_id: str | None = None
    is_error: bool = False
    usage: DriverUsage | None = None
    budget_reached: bool = False
    """On an error RESULT: the driver stopped the run at its spending limit
    (`amelia.drivers.spending`), not because anything failed."""

    def to_stream_event(self, agent: str, workflow_id: str) -> StreamEvent:
        """Convert to the StreamEvent that sinks (progress comment, logs) consume."""
        return StreamEvent(
            type=_STREAM_EVENT_TYPES[self.type],
            content=self.content or self.tool_output,
            agent=agent,
            workflow_id=workflow_id,
            tool_name=self.tool_name,
            tool_input=self.tool_input,
            is_error=self.is_error,
        )


class GenerateResult(BaseModel):
    """Result of a single-turn `generate()`: text, or an instance of the requested schema."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    output: str | BaseModel
    session_id: str | None = None
    usage: DriverUsage | None = None


@runtime_checkable
class DriverInterface(Protocol):
    """What every driver offers: one-shot generation and an agentic tool-using run."""

    async def generate(
        self,
        prompt: str,
        *,
        system_prompt: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> GenerateResult:
        """Generate one answer; `output` is text, or an instance of `schema` when given."""
        ...

    def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        *,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        """Run the prompt with tools in `cwd`, yielding messages; the last one is a RESULT."""
        ...
