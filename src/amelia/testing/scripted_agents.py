"""Scripted agents for in-process runs: one pydantic-ai `FunctionModel` per agent, run by the
real API driver with its real tools (shell, file edits) in the real checkout.

A script gives each role its answers by step, as the scripted Anthropic server does for the
Claude Code CLI: the answer to a conversation holding `n` answers already is the role's
`n`-th turn (the last one once the list is used up; "Nothing to do." for a role without
turns). A turn is a list of parts (`say`, `shell`, `write_file`, `final_result`, …), a
`ModelResponse`, or a function of the conversation returning either.

    agents = ScriptedAgents({
        "architect": [[shell("cat .git/config")], [say(PLAN)]],
        "developer": [[write_file("greeter/farewell.py", FAREWELL)], [say("Added it")]],
        "reviewer": [[final_result(verdict="approved", severity="none", summary="ok")]],
    })
    run_action(request=..., ports=ActionPorts(drivers=agents.drivers()))
    assert "cat .git/config" in agents.transcript()
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, get_args

from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    ModelResponsePart,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
)
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from amelia.core.types import AgentRole, Profile, ToolProfileName
from amelia.drivers.api.mapping import OUTPUT_TOOL_NAME
from amelia.drivers.base import DriverInterface
from amelia.drivers.runtime import DriverEnvironment
from amelia.errors import DriverError
from amelia.pipeline import MakeDriver
from amelia.pipeline.drivers import DriverSource

__all__ = [
    "AgentRequest",
    "AgentTurn",
    "ScriptedAgents",
    "edit_file",
    "final_result",
    "model_drivers",
    "read_file",
    "say",
    "shell",
    "write_file",
]

AgentTurn = (
    Sequence[ModelResponsePart]
    | ModelResponse
    | Callable[[list[ModelMessage]], "Sequence[ModelResponsePart] | ModelResponse"]
)
"""What an agent answers to one request (see the module docstring)."""

_calls = iter(range(1, 1 << 62))
_calls_lock = threading.Lock()


def _call_id() -> str:
    with _calls_lock:
        return f"call_{next(_calls)}"


def say(text: str) -> TextPart:
    """Plain text: the agent's final answer when nothing else is in the turn."""
    return TextPart(text)


def shell(command: str) -> ToolCallPart:
    """Run `command` with the agent's shell tool (in the checkout)."""
    return ToolCallPart("run_shell_command", {"command": command}, tool_call_id=_call_id())


def write_file(path: str, content: str) -> ToolCallPart:
    """Write `content` to `path` (relative to the checkout) with the agent's file tool."""
    arguments = {"file_path": path, "content": content}
    return ToolCallPart("write_file", arguments, tool_call_id=_call_id())


def edit_file(path: str, old: str, new: str) -> ToolCallPart:
    """Replace `old` by `new` in `path` with the agent's edit tool."""
    arguments = {"file_path": path, "old_text": old, "new_text": new}
    return ToolCallPart("edit_file", arguments, tool_call_id=_call_id())


def read_file(path: str) -> ToolCallPart:
    """Read `path` with the agent's read tool."""
    return ToolCallPart("read_file", {"file_path": path}, tool_call_id=_call_id())


def final_result(**fields: Any) -> ToolCallPart:
    """The agent's structured answer (e.g. the reviewer's verdict) with these fields."""
    return ToolCallPart(OUTPUT_TOOL_NAME, fields, tool_call_id=_call_id())


def model_drivers(models: Model | Mapping[AgentRole, Model]) -> DriverSource:
    """Every agent on the API driver with a given pydantic-ai model (one for all, or one
    per role), with the tools of the tool profile it is asked for, its environment and the
    profile's turn limit, as the API driver runs any model: what `ActionPorts.drivers`
    takes. A role without a model fails its agent with `DriverError`."""

    def source(profile: Profile, *, environment: DriverEnvironment | None = None) -> MakeDriver:
        from amelia.drivers.api import ApiDriver

        def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
            model = models.get(role) if isinstance(models, Mapping) else models
            if model is None:
                raise DriverError(f"no model was given for the {role}")
            return ApiDriver(
                model=model,
                tool_profile=tool_profile,
                max_turns=profile.agent(role).max_turns,
                environment=None if environment is None else environment.for_role(role),
            )

        return make

    return source


@dataclass(frozen=True)
class AgentRequest:
    """One request an agent's model received: the role and the conversation so far."""

    role: AgentRole
    messages: tuple[ModelMessage, ...]
    tools: tuple[str, ...]
    """The names of the tools the agent was given."""

    @property
    def step(self) -> int:
        """How many answers the conversation already holds (0 for its first request)."""
        return sum(1 for message in self.messages if isinstance(message, ModelResponse))

    @property
    def instructions(self) -> str:
        """The instructions the agent ran with (its system prompt), without the prompt."""
        texts: list[str] = []
        for message in self.messages:
            if isinstance(message, ModelRequest):
                texts += [message.instructions or ""]
                texts += [p.content for p in message.parts if isinstance(p, SystemPromptPart)]
        return "\n".join(dict.fromkeys(text for text in texts if text))

    def as_json(self) -> str:
        return ModelMessagesTypeAdapter.dump_json(list(self.messages)).decode()


class ScriptedAgents:
    """Every agent's model, scripted by role (see the module docstring)."""

    def __init__(self, turns: Mapping[AgentRole, Sequence[AgentTurn]] | None = None) -> None:
        self.turns: dict[AgentRole, list[AgentTurn]] = {
            role: list(script) for role, script in (turns or {}).items()
        }
        self.requests: list[AgentRequest] = []
        self._lock = threading.Lock()

    def model(self, role: AgentRole) -> FunctionModel:
        """The model `role`'s agent runs on."""

        def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            tools = tuple(tool.name for tool in [*info.function_tools, *info.output_tools])
            with self._lock:
                self.requests.append(AgentRequest(role, tuple(messages), tools))
                script = self.turns.get(role) or [[say("Nothing to do.")]]
            step = AgentRequest(role, tuple(messages), tools).step
            turn = script[min(step, len(script) - 1)]
            if callable(turn):
                turn = turn(messages)
            if isinstance(turn, ModelResponse):
                return turn
            return ModelResponse(parts=list(turn))

        return FunctionModel(answer, model_name=f"scripted-{role}")

    def drivers(self) -> DriverSource:
        """The drivers of a run: the API driver on each role's scripted model."""
        return model_drivers({role: self.model(role) for role in get_args(AgentRole)})

    def requests_of(self, role: AgentRole) -> list[AgentRequest]:
        return [request for request in self.requests if request.role == role]

    def transcript(self) -> str:
        """Every request as JSON, one a line: what the models were sent, to search."""
        return "\n".join(request.as_json() for request in self.requests)

    def tool_results(self, role: AgentRole | None = None) -> list[str]:
        """The content of every tool result the agents (or `role`'s) got back, in order,
        each once."""
        seen: dict[str, str] = {}
        for request in self.requests:
            if role is not None and request.role != role:
                continue
            for message in request.messages:
                for part in getattr(message, "parts", ()):
                    if getattr(part, "part_kind", "") in ("tool-return", "retry-prompt"):
                        content = part.content
                        text = content if isinstance(content, str) else json.dumps(content)
                        seen.setdefault(part.tool_call_id, text)
        return list(seen.values())
