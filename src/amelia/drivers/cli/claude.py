"""ClaudeCliDriver: Claude Code (through claude-agent-sdk) behind the DriverInterface.

The CLI runs as a subprocess with a scrubbed environment, a tool profile chosen by the
caller, and a raw JSONL transcript of every message under `$AMELIA_HOME/runs/`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import signal
import tempfile
import time
from collections import deque
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from pathlib import Path

import claude_agent_sdk
from claude_agent_sdk import (
    ClaudeAgentOptions,
    CLINotFoundError,
    Message,
    ProcessError,
    query,
)
from claude_agent_sdk.types import HookEvent, HookMatcher, PermissionMode, SystemPromptPreset
from loguru import logger
from pydantic import BaseModel, ValidationError

from amelia.core.types import ToolProfileName
from amelia.drivers.arguments import require_directory, require_prompt
from amelia.drivers.base import AgenticMessage, AgenticMessageType, GenerateResult
from amelia.drivers.cli._claude_hooks import confined_file_hooks, read_only_bash_hooks
from amelia.drivers.cli._claude_mapping import MessageMapper, extract_json_text
from amelia.drivers.cli._claude_mcp import (
    claude_mcp_rules,
    claude_mcp_servers,
    write_mcp_config,
)
from amelia.drivers.cli._claude_tmp import cli_scratch, private_tmpdir
from amelia.drivers.cli._claude_tools import tool_permissions
from amelia.drivers.default_environment import default_environment
from amelia.drivers.mcp import McpEndpoint, mcp_servers_for
from amelia.drivers.runtime import DriverEnvironment
from amelia.drivers.spending import current_spending_limit
from amelia.drivers.transcript import TranscriptWriter, amelia_home, new_transcript_path
from amelia.errors import DriverError
from amelia.isolation.agent_user import launcher
from amelia.isolation.model_access import model_access, model_upstreams
from amelia.isolation.stopped import describe_death, send
from amelia.redaction import CLAUDE_CONNECTION_VARS, blanking_overrides
from amelia.text import one_line

__all__ = ["CLI_STOP_REASON", "QUIET_CLI_ENV", "ClaudeCliDriver", "validate_answer"]


QUIET_CLI_ENV: dict[str, str] = {
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}
"""No update checks, telemetry or error reports from inside a CI job."""

_STDERR_TAIL_LINES = 20
_STDERR_TAIL_CHARS = 600
_END = object()
_EXIT_CODE = re.compile(r"exit code:? (-?\d+)")
_SDK_STDERR_PLACEHOLDER = "Check stderr output for details"
CLI_STOP_REASON = "the run was stopped (cancelled or out of time) before Claude Code ended"
"""Why amelia sends SIGTERM to a CLI whose run it stops (`amelia.isolation.stopped`)."""


class ClaudeCliDriver:
    """Runs prompts through the Claude Code CLI bundled with claude-agent-sdk."""

    def __init__(
        self,
        *,
        model: str | None = None,
        tool_profile: ToolProfileName = "full",
        max_turns: int | None = None,
        timeout_seconds: float | None = None,
        amelia_home: str | os.PathLike[str] | None = None,
        cli_path: str | os.PathLike[str] | None = None,
        web_tools: bool = False,
        env: Mapping[str, str] | None = None,
        environment: DriverEnvironment | None = None,
    ) -> None:
        """`environment` is what the CLI inherits (its secrets are blanked, as the SDK copies
        this process's environment) and the model's credentials (passed on); None: this
        process's environment, as `amelia.config` reads it (`default_environment`); `env` adds
        variables for the CLI (e.g. ANTHROPIC_BASE_URL); `amelia_home` wins over the
        environment's home."""
        self.model = model
        self.tool_profile: ToolProfileName = tool_profile
        self.max_turns = max_turns
        self.timeout_seconds = timeout_seconds
        self.environment = environment if environment is not None else default_environment()
        self.amelia_home = amelia_home if amelia_home is not None else self.environment.home
        self.cli_path = cli_path
        self.web_tools = web_tools
        self.extra_env = dict(env or {})
        self.last_transcript_path: Path | None = None
        self.last_tools: list[str] | None = None
        """The tools the CLI announced for the last run (from its init message)."""
        self._session_costs: dict[str, float] = {}
        """What each session run here had cost by the end of its last run: the CLI reports
        a resumed session's cost since the session began, not since it was resumed."""
        self._proxied: Mapping[str, str] | None = None
        """While runs last with `proxy_model_keys`: the credential proxy's URL and token."""
        self._proxy_users = 0
        self._proxy_stack: contextlib.AsyncExitStack | None = None

    @property
    def mcp(self) -> tuple[McpEndpoint, ...]:
        """The MCP servers of amelia's gateway this driver's agent was given."""
        return self.environment.mcp_servers

    def cli_environment(self, *, tmpdir: Path | None = None) -> dict[str, str]:
        """What `options.env` carries: every inherited secret blanked (the model's keys
        too), the model connection from the credentials only (amelia hands over the
        credential proxy's URL and token, and blanks the other key variables), the `PATH`
        the driver was handed (a project's setup may have added to it), the configuration
        directory, quiet defaults, the caller's additions, and last `tmpdir` as the CLI's
        temporary directory (`CLAUDE_CODE_TMPDIR` and `TMPDIR`; `_claude_tmp`)."""
        credentials = self._proxied if self._proxied is not None else self.environment.credentials
        inherited = self.environment.inherited
        # PATH and VIRTUAL_ENV as handed over: a project's toolchain changes both.
        path = {"PATH": inherited["PATH"]} if inherited.get("PATH") else {}
        if "VIRTUAL_ENV" in inherited:
            path["VIRTUAL_ENV"] = inherited["VIRTUAL_ENV"]
        connection = {
            name: credentials[name] for name in CLAUDE_CONNECTION_VARS if name in credentials
        }
        config_dir = self.environment.cli_config_dir
        environment = {
            **blanking_overrides(self.environment.inherited),
            **connection,
            **({} if config_dir is None else {"CLAUDE_CONFIG_DIR": str(config_dir)}),
            **path,
            **QUIET_CLI_ENV,
            **self.extra_env,
        }
        if tmpdir is not None:
            environment["CLAUDE_CODE_TMPDIR"] = environment["TMPDIR"] = str(tmpdir)
        agent = self.environment.agent
        return environment if agent is None else agent.environment(environment)

    @contextlib.asynccontextmanager
    async def _model_connection(self) -> AsyncIterator[None]:
        """While a run lasts, when the environment holds the real model key
        (`proxy_model_keys`): the credential proxy with the key, whose URL and per-run token
        the CLI gets instead (`cli_environment`); one proxy for the runs of this driver that
        overlap. Without a key to hide (`claude /login`, a cloud), the CLI's own."""
        if not self.environment.proxy_model_keys:
            yield
            return
        if self._proxy_users == 0:
            credentials = self.environment.credentials
            upstreams = model_upstreams(credentials, {**self.environment.inherited, **credentials})
            claude = [upstream for upstream in upstreams if upstream.provider == "anthropic"]
            stack = contextlib.AsyncExitStack()
            access = await stack.enter_async_context(model_access(claude))
            if access.token is not None and self.environment.redactor is not None:
                self.environment.redactor.add_secrets([access.token])
            self._proxy_stack = stack
            self._proxied = dict(access.environment) if access.token is not None else None
        self._proxy_users += 1
        try:
            yield
        finally:
            self._proxy_users -= 1
            if self._proxy_users == 0 and self._proxy_stack is not None:
                stack, self._proxy_stack, self._proxied = self._proxy_stack, None, None
                await stack.aclose()

    def _program(self) -> Path:
        """The CLI this driver runs: `cli_path`, else the one bundled with
        claude-agent-sdk, else `claude` on PATH."""
        if self.cli_path is not None:
            if not Path(self.cli_path).is_file():
                raise DriverError(f"Claude Code CLI not found at {self.cli_path}")
            return Path(self.cli_path)
        bundled = Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"
        if bundled.is_file():
            return bundled
        found = shutil.which("claude", path=self.environment.inherited.get("PATH"))
        if found is None:
            raise DriverError("Claude Code CLI not found: neither bundled nor on PATH")
        return Path(found)

    def _options(
        self,
        cwd: str,
        session_id: str | None,
        system_prompt: str | SystemPromptPreset,
        schema: type[BaseModel] | None,
        stderr_lines: deque[str],
        tools: list[str] | None = None,
        script: Path | None = None,
        mcp_config: Path | None = None,
        tmpdir: Path | None = None,
    ) -> ClaudeAgentOptions:
        """`script`: a launcher that records the CLI's pid and runs it, as the agent user
        when there is one (None: run the CLI directly); `mcp_config`: the agent's MCP
        servers in a file (`write_mcp_config`; None: inline); `tmpdir`: the CLI's private
        temporary directory (`private_tmpdir`; None: the CLI's shared default)."""
        permissions = tool_permissions(self.tool_profile, self.web_tools)
        if self.cli_path is not None and not Path(self.cli_path).is_file():
            raise DriverError(f"Claude Code CLI not found at {self.cli_path}")
        cli_path = script or (None if self.cli_path is None else Path(self.cli_path))
        permission_mode: PermissionMode = (
            "acceptEdits" if permissions.permission_mode == "acceptEdits" else "default"
        )
        servers = self._mcp_servers(tools)
        return ClaudeAgentOptions(
            tools=list(permissions.tools) if tools is None else tools,
            allowed_tools=(
                [*permissions.allowed_tools, *claude_mcp_rules(servers)] if tools is None else tools
            ),
            mcp_servers=str(mcp_config) if mcp_config is not None else claude_mcp_servers(servers),
            permission_mode=permission_mode,
            hooks=self._hooks(Path(cwd)) if tools is None else None,
            setting_sources=(
                None if permissions.setting_sources is None else list(permissions.setting_sources)  # type: ignore[arg-type]
            ),
            strict_mcp_config=permissions.strict_mcp,
            system_prompt=system_prompt,
            resume=session_id,
            model=self.model,
            max_turns=self.max_turns,
            # The CLI prices each response itself and stops before acting on the one
            # that reaches this (an `error_max_budget_usd` result).
            max_budget_usd=current_spending_limit() if tools is None else None,
            cwd=cwd,
            env=self.cli_environment(tmpdir=tmpdir),
            stderr=stderr_lines.append,
            cli_path=cli_path,
            output_format=(
                {"type": "json_schema", "schema": schema.model_json_schema()}
                if schema is not None
                else None
            ),
        )

    def _mcp_servers(self, tools: list[str] | None) -> tuple[McpEndpoint, ...]:
        """The MCP servers of an agentic run (`generate` passes `tools=[]`: none)."""
        return () if tools is not None else mcp_servers_for(self.tool_profile, self.mcp)

    def _hooks(self, cwd: Path) -> dict[HookEvent, list[HookMatcher]] | None:
        """Read-only Bash needs a hook (prefix rules cannot see options such as --output);
        `read_files` one that keeps the file tools inside `cwd`."""
        if self.tool_profile == "read_only":
            return read_only_bash_hooks()
        if self.tool_profile == "read_files":
            return confined_file_hooks(cwd)
        return None

    async def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        *,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        """Run `prompt` with the profile's tools in `cwd`; the last message is a RESULT.
        An empty prompt or a `cwd` that is not a directory is a `DriverInputError` (a
        `ValueError`), before the CLI starts."""
        require_prompt(prompt)
        require_directory(cwd)
        system_prompt: SystemPromptPreset = {"type": "preset", "preset": "claude_code"}
        if instructions:
            system_prompt["append"] = instructions
        async with self._model_connection():
            async for message in self._run(prompt, cwd, session_id, system_prompt, schema):
                yield message

    async def _run(
        self,
        prompt: str,
        cwd: str,
        session_id: str | None,
        system_prompt: str | SystemPromptPreset,
        schema: type[BaseModel] | None,
        tools: list[str] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        with contextlib.ExitStack() as stack:
            agent = self.environment.agent
            # amelia's own directory: the agent user cannot change the script it is run by.
            # The CLI's temporary files go there too, and go with it.
            uid = os.geteuid() if agent is None else agent.uid
            scratch = Path(stack.enter_context(cli_scratch(uid)))
            tmpdir = private_tmpdir(scratch, owner=agent)
            pid_file = scratch / "cli.pid"
            if agent is not None:
                script = agent.wrapper(scratch, self._program(), pid_file=pid_file)
            else:
                script = launcher(scratch / "claude", [str(self._program())], pid_file=pid_file)
            servers = self._mcp_servers(tools)
            mcp_config = write_mcp_config(scratch, servers, owner=agent) if servers else None
            messages = self._run_cli(
                prompt,
                cwd,
                session_id,
                system_prompt,
                schema,
                tools,
                script,
                pid_file,
                mcp_config,
                tmpdir,
            )
            async with contextlib.aclosing(messages):
                async for message in messages:
                    yield message

    async def _run_cli(
        self,
        prompt: str,
        cwd: str,
        session_id: str | None,
        system_prompt: str | SystemPromptPreset,
        schema: type[BaseModel] | None,
        tools: list[str] | None,
        script: Path,
        pid_file: Path,
        mcp_config: Path | None = None,
        tmpdir: Path | None = None,
    ) -> AsyncGenerator[AgenticMessage]:
        stderr_lines: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        options = self._options(
            cwd, session_id, system_prompt, schema, stderr_lines, tools, script, mcp_config, tmpdir
        )
        mapper = MessageMapper(
            model=self.model,
            structured=schema is not None,
            cost_before=self._session_costs.get(session_id, 0.0) if session_id else 0.0,
        )
        transcript_path = new_transcript_path(amelia_home(override=self.amelia_home))
        self.last_transcript_path = transcript_path
        logger.info("Claude Code run in {} — transcript {}", cwd, transcript_path)
        deadline = None if self.timeout_seconds is None else time.monotonic() + self.timeout_seconds
        with TranscriptWriter(transcript_path, redactor=self.environment.redactor) as transcript:
            transcript.write("request", {"prompt": prompt, "cwd": cwd, "resume": session_id})
            queue: asyncio.Queue[object] = asyncio.Queue()
            producer = asyncio.create_task(_pump(prompt, options, queue))
            finished = False
            try:
                while True:
                    remaining = None if deadline is None else deadline - time.monotonic()
                    try:
                        item = await asyncio.wait_for(queue.get(), timeout=remaining)
                    except TimeoutError:
                        error = mapper.error_result(
                            f"Claude Code timed out after {self.timeout_seconds:g} s"
                            f"{_stderr_suffix(stderr_lines)}"
                        )
                        transcript.write("driver_error", error.model_dump())
                        yield error
                        return
                    if item is _END:
                        break
                    if isinstance(item, BaseException):
                        failure = self._failure_result(
                            item, mapper, stderr_lines, finished, _recorded_pid(pid_file)
                        )
                        if failure is None:
                            break
                        transcript.write("driver_error", failure.model_dump())
                        yield failure
                        return
                    transcript.write(type(item).__name__, item)
                    for mapped in mapper.map(item):  # type: ignore[arg-type]
                        if mapped.type == AgenticMessageType.RESULT:
                            finished = True
                            self._remember_cost(mapper)
                        yield mapped
                    self.last_tools = mapper.tools
                if not finished:
                    error = mapper.error_result(
                        f"Claude Code ended without a result{_stderr_suffix(stderr_lines)}"
                    )
                    transcript.write("driver_error", error.model_dump())
                    yield error
            except (asyncio.CancelledError, GeneratorExit):
                # A caller's timeout or a cancelled job: say so in the transcript, whose
                # earlier lines are the partial run to look at afterwards.
                transcript.write("driver_stopped", {"finished": finished})
                raise
            finally:
                if not producer.done():
                    if not finished:
                        # Stopped mid-run (a cancelled job, the time limit): stop the CLI
                        # now. The SDK would first wait 5 s for it to end by itself once
                        # its input closes, which a CLI in the middle of a tool call does
                        # not, and a cancelled job has only seconds before its kill.
                        _stop_cli(_recorded_pid(pid_file))
                    producer.cancel()
                    await asyncio.gather(producer, return_exceptions=True)

    def _remember_cost(self, mapper: MessageMapper) -> None:
        if mapper.session_id and mapper.session_cost is not None:
            self._session_costs[mapper.session_id] = mapper.session_cost

    def _failure_result(
        self,
        error: BaseException,
        mapper: MessageMapper,
        stderr_lines: deque[str],
        finished: bool,
        pid: int | None,
    ) -> AgenticMessage | None:
        """The RESULT for an SDK exception, None when the run already produced its RESULT.
        A CLI (`pid`) killed by a signal is said to be, naming the signal and, when amelia
        sent it, why (`amelia.isolation.stopped`)."""
        if isinstance(error, CLINotFoundError):
            raise DriverError(f"Claude Code CLI not found: {error}") from error
        if finished:
            # The CLI exits non-zero after an error result; the RESULT already says why.
            return None
        exit_code = error.exit_code if isinstance(error, ProcessError) else None
        if exit_code is None:
            # The SDK reports an early exit as a failed write to the dead process.
            found = _EXIT_CODE.search(str(error))
            exit_code = int(found.group(1)) if found else None
        death = None if exit_code is None else describe_death(exit_code, pid=pid)
        if death is not None:
            reason = f"Claude Code was {death}"
        elif exit_code is not None:
            reason = f"Claude Code exited with code {exit_code}"
        else:
            reason = f"Claude Code failed: {type(error).__name__}: {error}"
        sdk_stderr = error.stderr if isinstance(error, ProcessError) else None
        if not stderr_lines and sdk_stderr and sdk_stderr != _SDK_STDERR_PLACEHOLDER:
            stderr_lines.extend(sdk_stderr.splitlines())
        return mapper.error_result(f"{reason}{_stderr_suffix(stderr_lines)}")

    async def generate(
        self,
        prompt: str,
        *,
        system_prompt: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> GenerateResult:
        """One answer without tools: text, or a validated instance of `schema`."""
        require_prompt(prompt)
        result: AgenticMessage | None = None
        with tempfile.TemporaryDirectory(prefix="amelia-generate-") as scratch:
            if self.environment.agent is not None:
                self.environment.agent.own(Path(scratch))
            async with self._model_connection():
                async for message in self._run(
                    prompt, scratch, None, system_prompt or "", schema, tools=[]
                ):
                    if message.type == AgenticMessageType.RESULT:
                        result = message
        if result is None or result.is_error:
            reason = result.content if result is not None else "no result"
            wanted = f" (answer for schema {schema.__name__})" if schema is not None else ""
            raise DriverError(f"Claude Code generate failed{wanted}: {reason}")
        text = result.content or ""
        if schema is None:
            return GenerateResult(output=text, session_id=result.session_id, usage=result.usage)
        return GenerateResult(
            output=validate_answer(text, schema),
            session_id=result.session_id,
            usage=result.usage,
        )


def validate_answer(text: str, schema: type[BaseModel]) -> BaseModel:
    """Parse a JSON answer (bare or in a fenced block) into `schema`, or say why not."""
    try:
        return schema.model_validate_json(extract_json_text(text))
    except ValidationError as error:
        raise DriverError(
            f"Answer does not match schema {schema.__name__}: "
            f"{one_line(str(error))[:_STDERR_TAIL_CHARS]}"
        ) from error


async def _pump(prompt: str, options: ClaudeAgentOptions, queue: asyncio.Queue[object]) -> None:
    """Feed the SDK's messages into `queue`, ending with `_END` or the exception."""
    try:
        message: Message
        async for message in query(prompt=prompt, options=options):
            await queue.put(message)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # handed to the consumer, which turns it into a RESULT
        await queue.put(error)
        return
    await queue.put(_END)


def _recorded_pid(pid_file: Path) -> int | None:
    """The CLI's pid, as its launcher wrote it (None: not started)."""
    try:
        text = pid_file.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isdigit() else None


def _stop_cli(pid: int | None) -> None:
    """SIGTERM to the CLI of a run stopped before its end, if it still runs as amelia's
    child (its launcher execs it, so the recorded pid is the CLI's own)."""
    if pid is None:
        return
    try:
        # /proc/<pid>/stat: "pid (comm) state ppid …", comm may hold spaces and parentheses.
        fields = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()
    except (OSError, UnicodeDecodeError, IndexError):
        return
    if len(fields) > 1 and fields[1] == str(os.getpid()) and fields[0] != "Z":
        send(pid, signal.SIGTERM, reason=CLI_STOP_REASON)


def _stderr_suffix(lines: deque[str] | list[str]) -> str:
    tail = one_line(" | ".join(line for line in lines if line.strip()))
    if not tail:
        return ""
    return f" — stderr: …{tail[-_STDERR_TAIL_CHARS:]}"
