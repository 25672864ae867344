"""A driver that replays scripted `AgenticMessage` sequences and records what it was asked.

Use it to test agents, the orchestrator or anything built on them without a model:

    driver = ScriptedDriver([
        [tool_call("Read", {"file_path": "app.py"}, "t1"), tool_result("Read", "...", "t1"),
         result("**Goal:** Add a flag\n\n### Task 1: ...", session_id="s-1")],
    ])

Each `execute_agentic` call consumes the next turn of the script. A turn is a sequence of
messages, an exception to raise before anything is yielded, or a callable that receives
the recorded call (to act on `cwd`, as a real developer would) and returns the messages.
An exception inside a message sequence is raised at that point of the stream. The driver
raises `DriverError` when the script is exhausted, so an unexpected extra call fails loudly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverUsage, GenerateResult
from amelia.errors import DriverError

__all__ = [
    "RecordedCall",
    "ScriptStep",
    "ScriptTurn",
    "ScriptedDriver",
    "result",
    "thinking",
    "tool_call",
    "tool_result",
]


ScriptStep = AgenticMessage | BaseException
ScriptTurn = Sequence[ScriptStep] | BaseException | Callable[["RecordedCall"], Sequence[ScriptStep]]


@dataclass(frozen=True)
class RecordedCall:
    """One request the driver received, exactly as the caller made it."""

    kind: Literal["agentic", "generate"]
    prompt: str
    cwd: str | None
    session_id: str | None
    instructions: str | None
    schema: type[BaseModel] | None


class ScriptedDriver:
    """Implements `DriverInterface` by replaying a script; see the module docstring."""

    def __init__(
        self,
        turns: Iterable[ScriptTurn] = (),
        *,
        generate_outputs: Iterable[str | BaseModel] = (),
    ) -> None:
        self._turns: list[ScriptTurn] = list(turns)
        self._generate_outputs: list[str | BaseModel] = list(generate_outputs)
        self.calls: list[RecordedCall] = []

    @property
    def agentic_calls(self) -> list[RecordedCall]:
        return [call for call in self.calls if call.kind == "agentic"]

    @property
    def remaining_turns(self) -> int:
        return len(self._turns)

    async def generate(
        self,
        prompt: str,
        *,
        system_prompt: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> GenerateResult:
        self.calls.append(
            RecordedCall(
                kind="generate",
                prompt=prompt,
                cwd=None,
                session_id=None,
                instructions=system_prompt,
                schema=schema,
            )
        )
        if not self._generate_outputs:
            raise DriverError("ScriptedDriver: no scripted output left for generate()")
        return GenerateResult(output=self._generate_outputs.pop(0))

    async def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        *,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        call = RecordedCall(
            kind="agentic",
            prompt=prompt,
            cwd=cwd,
            session_id=session_id,
            instructions=instructions,
            schema=schema,
        )
        self.calls.append(call)
        if not self._turns:
            raise DriverError(
                f"ScriptedDriver: script exhausted after {len(self.agentic_calls) - 1} calls"
            )
        turn = self._turns.pop(0)
        if isinstance(turn, BaseException):
            raise turn
        steps = turn(call) if callable(turn) else turn
        for step in steps:
            if isinstance(step, BaseException):
                raise step
            yield step


def thinking(text: str) -> AgenticMessage:
    return AgenticMessage(type=AgenticMessageType.THINKING, content=text)


def tool_call(name: str, tool_input: dict[str, Any], call_id: str) -> AgenticMessage:
    return AgenticMessage(
        type=AgenticMessageType.TOOL_CALL,
        tool_name=name,
        tool_input=tool_input,
        tool_call_id=call_id,
    )


def tool_result(name: str, output: str, call_id: str, *, is_error: bool = False) -> AgenticMessage:
    return AgenticMessage(
        type=AgenticMessageType.TOOL_RESULT,
        tool_name=name,
        tool_output=output,
        tool_call_id=call_id,
        is_error=is_error,
    )


def result(
    content: str,
    *,
    session_id: str | None = "scripted-session",
    is_error: bool = False,
    usage: DriverUsage | None = None,
) -> AgenticMessage:
    return AgenticMessage(
        type=AgenticMessageType.RESULT,
        content=content,
        session_id=session_id,
        is_error=is_error,
        usage=usage,
    )
