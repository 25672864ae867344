"""Scripted pydantic-ai models and a collector for API-driver tests."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage


def call(name: str, args: dict[str, Any], call_id: str | None = None) -> ToolCallPart:
    return ToolCallPart(tool_name=name, args=args, tool_call_id=call_id or f"id-{name}")


class ScriptedModel:
    """A FunctionModel answering from a list of responses, recording what it was sent."""

    def __init__(self, responses: Sequence[ModelResponse | str]) -> None:
        self.responses = list(responses)
        self.seen: list[list[ModelMessage]] = []
        self.model = FunctionModel(self._answer, model_name="scripted")

    def _answer(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.seen.append(list(messages))
        if not self.responses:
            return ModelResponse(parts=[TextPart("end of script")])
        reply = self.responses.pop(0)
        return ModelResponse(parts=[TextPart(reply)]) if isinstance(reply, str) else reply


async def collect(driver: ApiDriver, prompt: str, cwd: Path, **kwargs: Any) -> list[AgenticMessage]:
    return [message async for message in driver.execute_agentic(prompt, str(cwd), **kwargs)]
