"""ApiDriver: any pydantic-ai OpenAI-compatible model behind the DriverInterface.

Bad arguments raise DriverInputError, a ValueError (an empty prompt or instructions, sizes
over the limits, an empty model or an unknown provider, a working directory that is missing
or not a directory); a missing API key or a bad session id a DriverError; both before any
request is sent. Once a run has started, model and API failures end in an error RESULT
instead of an exception.
"""

from __future__ import annotations

import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any

import openai
from pydantic import BaseModel
from pydantic_ai import Agent, AgentRun
from pydantic_ai.exceptions import AgentRunError, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.output import ToolOutput
from pydantic_ai.usage import RunUsage, UsageLimits

from amelia.core.types import ToolProfileName
from amelia.drivers.api.mapping import OUTPUT_TOOL_NAME, MessageMapper, error_reason
from amelia.drivers.api.mcp import mcp_toolsets
from amelia.drivers.api.providers import ModelName, open_model, parse_model_name
from amelia.drivers.api.sessions import SessionStore, new_session_id
from amelia.drivers.api.tools import ToolContext, check_tool_profile, tools_for_profile
from amelia.drivers.arguments import require_directory, require_prompt
from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverUsage, GenerateResult
from amelia.drivers.credentials import DEFAULT_API_MODEL
from amelia.drivers.default_environment import default_environment
from amelia.drivers.mcp import McpEndpoint, mcp_servers_for
from amelia.drivers.runtime import DriverEnvironment
from amelia.drivers.spending import current_spending_limit
from amelia.drivers.transcript import TranscriptWriter, amelia_home, new_transcript_path
from amelia.errors import DriverError, DriverInputError

__all__ = [
    "DEFAULT_MAX_TURNS",
    "MAX_INSTRUCTIONS_CHARS",
    "MAX_PROMPT_CHARS",
    "ApiDriver",
    "validate_prompt",
]


MAX_PROMPT_CHARS = 100_000
MAX_INSTRUCTIONS_CHARS = 50_000
"""Room for an agent's own instructions plus the repository's (`.github/amelia.yml`, cut
to size: inline texts, instruction files and the reviewer's path instructions)."""
DEFAULT_MAX_TURNS = 100
"""Bound on model requests per run when the caller sets none, so a loop cannot run forever."""

_RUN_ERRORS = (AgentRunError, openai.OpenAIError, TimeoutError, OSError)
"""Failures of the model, its API or the network: they end a run with an error RESULT."""


def validate_prompt(prompt: str, *, instructions: str | None = None) -> None:
    """Raise `DriverInputError` for an empty prompt/instructions or ones over the size
    limits."""
    require_prompt(prompt)
    if len(prompt) > MAX_PROMPT_CHARS:
        raise DriverInputError(
            f"The prompt is {len(prompt)} characters; the limit is {MAX_PROMPT_CHARS} (100 KB)"
        )
    if instructions is None:
        return
    if not instructions.strip():
        raise DriverInputError("The instructions are empty")
    if len(instructions) > MAX_INSTRUCTIONS_CHARS:
        raise DriverInputError(
            f"The instructions are {len(instructions)} characters; "
            f"the limit is {MAX_INSTRUCTIONS_CHARS}"
        )


class ApiDriver:
    """Runs agents on OpenAI (`openai:`, `openai-chat:`) or OpenRouter (`openrouter:`) models.

    `model` is a `provider:name` string (no prefix means openai) or, for tests, a pydantic-ai
    `Model` instance used as is.
    """

    def __init__(
        self,
        *,
        model: str | Model = DEFAULT_API_MODEL,
        tool_profile: ToolProfileName = "full",
        max_turns: int | None = None,
        timeout_seconds: float | None = None,
        amelia_home: str | os.PathLike[str] | None = None,
        max_retries: int = 2,
        environment: DriverEnvironment | None = None,
    ) -> None:
        """`environment` holds the model's key and base URL and what tools' commands start
        from (see `DriverEnvironment`; None: this process's environment, as `amelia.config`
        reads it, its keys from the usual variables); `amelia_home` wins over its home."""
        self._injected_model: Model | None = None
        self._model_name: ModelName | None = None
        if isinstance(model, str):
            self._model_name = parse_model_name(model)
            self.model_name = self._model_name.qualified
            self.provider = self._model_name.provider
        else:
            self._injected_model = model
            self.model_name = model.model_name
            self.provider = model.system
        check_tool_profile(tool_profile)  # refused now, not mid-run
        self.tool_profile: ToolProfileName = tool_profile
        self.max_turns = max_turns
        self.timeout_seconds = timeout_seconds
        self.environment = environment if environment is not None else default_environment()
        self.amelia_home = amelia_home if amelia_home is not None else self.environment.home
        self.max_retries = max_retries
        self.last_transcript_path: Path | None = None

    @property
    def mcp(self) -> tuple[McpEndpoint, ...]:
        """The MCP servers of amelia's gateway this driver's agent was given."""
        return self.environment.mcp_servers

    @asynccontextmanager
    async def _model(self) -> AsyncIterator[Model]:
        if self._injected_model is not None:
            yield self._injected_model
            return
        assert self._model_name is not None
        # A fresh client per call: an HTTP connection pool must not outlive its event loop.
        async with open_model(
            self._model_name,
            max_retries=self.max_retries,
            timeout_seconds=self.timeout_seconds,
            environ={**self.environment.inherited, **self.environment.credentials},
        ) as model:
            yield model

    def _usage(self, usage: RunUsage, started: float) -> DriverUsage:
        return DriverUsage(
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_read_tokens=usage.cache_read_tokens,
            cache_creation_tokens=usage.cache_write_tokens,
            # pydantic-ai prices each response (genai-prices); None for a model it cannot.
            cost_usd=None if usage.cost is None else float(usage.cost),
            num_turns=usage.requests,
            duration_ms=int((time.monotonic() - started) * 1000),
            model=self.model_name,
        )

    async def generate(
        self,
        prompt: str,
        *,
        system_prompt: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> GenerateResult:
        """One answer without tools: text, or a validated `schema` instance."""
        validate_prompt(prompt, instructions=system_prompt)
        started = time.monotonic()
        output_type: Any = str if schema is None else ToolOutput(schema, name=OUTPUT_TOOL_NAME)
        async with self._model() as model:
            agent: Agent[None, Any] = Agent(model, output_type=output_type)
            try:
                result = await agent.run(
                    prompt,
                    instructions=system_prompt,
                    usage_limits=UsageLimits(request_limit=self.max_turns or DEFAULT_MAX_TURNS),
                    timeout=self.timeout_seconds,
                )
            except _RUN_ERRORS as error:
                raise DriverError(error_reason(error)) from error
        return GenerateResult(output=result.output, usage=self._usage(result.usage, started))

    async def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        *,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        """Run `prompt` with the profile's tools in `cwd`; the last message is a RESULT."""
        validate_prompt(prompt, instructions=instructions)
        require_directory(cwd)
        home = amelia_home(override=self.amelia_home)
        store = SessionStore(home, redactor=self.environment.redactor)
        history: list[ModelMessage] = store.load(session_id) if session_id else []
        run_session_id = session_id or new_session_id()
        self.last_transcript_path = new_transcript_path(home, tag=f"api-{run_session_id[:12]}")
        async with self._model() as model:
            with TranscriptWriter(
                self.last_transcript_path, redactor=self.environment.redactor
            ) as transcript:
                async for message in self._run(
                    model, prompt, cwd, history, instructions, schema, run_session_id, store
                ):
                    transcript.write("message", message.model_dump(mode="json"))
                    yield message

    async def _run(
        self,
        model: Model,
        prompt: str,
        cwd: str,
        history: list[ModelMessage],
        instructions: str | None,
        schema: type[BaseModel] | None,
        session_id: str,
        store: SessionStore,
    ) -> AsyncIterator[AgenticMessage]:
        started = time.monotonic()
        output_type: Any = str if schema is None else ToolOutput(schema, name=OUTPUT_TOOL_NAME)
        agent: Agent[ToolContext, Any] = Agent(
            model,
            deps_type=ToolContext,
            tools=tools_for_profile(self.tool_profile),
            toolsets=mcp_toolsets(mcp_servers_for(self.tool_profile, self.mcp)),
            output_type=output_type,
        )
        mapper = MessageMapper()
        mapper.mark_seen(history)
        usage = RunUsage()
        limit = current_spending_limit()
        # pydantic-ai checks the cost after each response and stops before acting on the
        # one that goes over it: between model requests, never during a tool call.
        limits = UsageLimits(
            request_limit=self.max_turns or DEFAULT_MAX_TURNS,
            cost_limit=None if limit is None else Decimal(str(limit)),
        )
        run: AgentRun[ToolContext, Any] | None = None
        try:
            async with agent.iter(
                prompt,
                deps=ToolContext(
                    Path(cwd),
                    inherited=self.environment.inherited,
                    agent=self.environment.agent,
                ),
                message_history=history or None,
                instructions=instructions,
                usage_limits=limits,
                timeout=self.timeout_seconds,
            ) as run:
                async for _node in run:
                    for message in mapper.new_messages(run.all_messages()):
                        yield message
                    usage = run.usage
                for message in mapper.new_messages(run.all_messages()):
                    yield message
                usage = run.usage
                result = run.result
                if result is None:
                    raise DriverError("The model run ended without a result")
                store.save(session_id, result.all_messages())
                output = result.output
        except _RUN_ERRORS as error:
            reached = False
            if isinstance(error, UsageLimitExceeded) and run is not None:
                usage = run.usage  # with the response that went over the limit
                reached = limits.cost_limit is not None and (usage.cost or 0) > limits.cost_limit
            if reached and run is not None:
                for message in mapper.new_messages(run.all_messages()):
                    yield message  # what the model asked for last, never carried out
            # Only name a session that can be resumed: the last saved history stays valid.
            resumable = session_id if store.path(session_id).is_file() else None
            yield AgenticMessage(
                type=AgenticMessageType.RESULT,
                content=(
                    f"stopped: spending limit reached (${usage.cost:.4f} spent)"
                    if reached
                    else error_reason(error)
                ),
                session_id=resumable,
                is_error=True,
                usage=self._usage(usage, started),
                budget_reached=reached,
            )
            return
        content = output.model_dump_json() if isinstance(output, BaseModel) else str(output)
        yield AgenticMessage(
            type=AgenticMessageType.RESULT,
            content=content,
            session_id=session_id,
            usage=self._usage(usage, started),
        )
