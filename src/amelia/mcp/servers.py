"""Starting the configured MCP servers, holding a client of each, stopping them.

    async with running_servers(launches, user=mcp_user, inherited=environ) as servers:
        result = await servers["docs"].call("lookup", {"query": "…"})

A server given by `command` is started by amelia (stdio), as the MCP user when there is
one (`amelia.isolation.mcp_user`), in a fresh HOME only that user may enter (also its
working directory and TMPDIR), from the environment the agents' commands start from (no
credential) plus its own `env`. A server given by `url` is reached from amelia's own
process with its `headers`, so its credentials never leave it. Each server must start and
list its tools within its `startup_timeout_seconds`; one that does not stops everything
with a `McpServerError` naming it (and the last lines it wrote to stderr, redacted), before
any agent runs. A tool call that fails, or takes longer than `tool_timeout_seconds`, is an
error-flagged result naming the server; it never ends the run.

On leaving (the run's end, a cancelled run on SIGTERM) every client is closed: a command's
process gets its stdin closed, then SIGTERM, then SIGKILL for its whole process group (the
MCP SDK's shutdown), and every process of the MCP user this run started that is still
alive is killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO

from loguru import logger

from amelia.errors import McpServerError
from amelia.isolation.agent_user import AgentUser
from amelia.mcp.config import McpConfig, McpServer
from amelia.mcp.values import ValueSources
from amelia.redaction import Redactor, is_secret_name
from amelia.text import one_line

if TYPE_CHECKING:
    from mcp import Client
    from mcp import types as mcp_types

__all__ = ["MCP_STOP_REASON", "RunningServer", "ServerLaunch", "launches", "running_servers"]

MCP_STOP_REASON = "amelia stops the MCP servers of its run when the run ends"
_STDERR_TAIL_LINES: Final = 5
_STDERR_TAIL_CHARS: Final = 400
_STOP_SECONDS: Final = 15.0
_MAX_TOOLS: Final = 500


@dataclass(frozen=True, kw_only=True)
class ServerLaunch:
    """A configured server with its values filled in."""

    name: str
    config: McpServer
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def secrets(self) -> list[str]:
        """The values taken from secrets and inputs: for the run's redactor."""
        found: list[str] = []
        for values, given in ((self.env, self.config.env), (self.headers, self.config.headers)):
            found += [values[name] for name, value in given.items() if not isinstance(value, str)]
        return found


def launches(config: McpConfig, sources: ValueSources) -> list[ServerLaunch]:
    """The servers some agent gets tools of, with their values filled in from `sources`.
    Raises `ConfigError` naming the first value that cannot be filled in."""
    found: list[ServerLaunch] = []
    for name, server in config.used().items():
        where = f"mcp.servers.{name}"
        env = {
            key: sources.resolve(value, where=f"{where}.env.{key}")
            for key, value in server.env.items()
        }
        headers = {
            key: sources.resolve(value, where=f"{where}.headers.{key}")
            for key, value in server.headers.items()
        }
        found.append(ServerLaunch(name=name, config=server, env=env, headers=headers))
    return found


def _error(text: str) -> mcp_types.CallToolResult:
    from mcp import types as mcp_types

    return mcp_types.CallToolResult(
        content=[mcp_types.TextContent(type="text", text=text)], is_error=True
    )


def _reason(error: BaseException) -> str:
    """One line for what ended a connection: the innermost error of an exception group."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    from mcp import MCPError

    if isinstance(error, MCPError):
        return error.error.message
    if isinstance(error, FileNotFoundError):
        return f"{error.filename or 'the command'} not found"
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class RunningServer:
    """One server while it runs: its tools, and calls to them."""

    def __init__(
        self,
        launch: ServerLaunch,
        *,
        user: AgentUser | None,
        inherited: Mapping[str, str],
        scratch: Path,
    ) -> None:
        self.name = launch.name
        self.launch = launch
        self.tools: tuple[mcp_types.Tool, ...] = ()
        self._user = user
        self._inherited = inherited
        self._scratch = scratch
        self._client: Client | None = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._ended: str | None = None
        self._stderr_path = scratch / f"{launch.name}.stderr"
        self._home_dir: Path | None = None

    @property
    def tool_timeout(self) -> float:
        return self.launch.config.tool_timeout_seconds

    # -- starting ---------------------------------------------------------------------------

    async def start(self, redactor: Redactor) -> None:
        """Start the server and list its tools; raises `McpServerError` naming it."""
        loop = asyncio.get_running_loop()
        self._ready = loop.create_future()
        self._task = asyncio.create_task(self._hold(), name=f"mcp-server-{self.name}")
        timeout = self.launch.config.startup_timeout_seconds
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), timeout)
        except TimeoutError:
            await self.stop()
            raise McpServerError(
                f"MCP server {self.name} did not answer within {timeout:g} s"
                f"{self._stderr_tail(redactor)}"
            ) from None
        except Exception as error:
            await self.stop()
            reason = error.message if isinstance(error, McpServerError) else _reason(error)
            raise McpServerError(
                f"MCP server {self.name} did not start: {redactor.redact(reason)}"
                f"{self._stderr_tail(redactor)}"
            ) from None

    async def _hold(self) -> None:
        """Own the client from start to stop (the MCP SDK's task groups must be left by
        the task that entered them)."""
        assert self._ready is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await self._connect(stack)
                self.tools = await _list_tools(client)
                self._client = client
                if not self._ready.done():
                    self._ready.set_result(None)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not self._ready.done():
                self._ready.cancel()
            raise
        except BaseException as error:
            reason = _reason(error)
            if not self._ready.done():
                self._ready.set_exception(McpServerError(reason))
            elif not self._stop.is_set():
                logger.warning("MCP server {} stopped answering: {}", self.name, reason)
            self._ended = reason
        finally:
            self._client = None
            self._ended = self._ended or "stopped"

    async def _connect(self, stack: contextlib.AsyncExitStack) -> Client:
        from mcp import Client

        config = self.launch.config
        if config.command is not None:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            home = self._home()
            argv = [config.command, *config.args]
            if self._user is not None:
                argv = self._user.command(argv)
            parameters = StdioServerParameters(
                command=argv[0], args=argv[1:], env=self._environment(home), cwd=home
            )
            errlog: TextIO = stack.enter_context(self._stderr_path.open("w", encoding="utf-8"))
            transport: Any = stdio_client(parameters, errlog=errlog)
        else:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            assert config.url is not None
            http = await stack.enter_async_context(
                httpx2.AsyncClient(
                    headers=dict(self.launch.headers),
                    timeout=httpx2.Timeout(30.0, read=config.tool_timeout_seconds + 30.0),
                )
            )
            transport = streamable_http_client(config.url, http_client=http)
        client = Client(transport, cache=None, read_timeout_seconds=config.tool_timeout_seconds)
        return await stack.enter_async_context(client)

    def _home(self) -> Path:
        """A fresh directory only the server's user may enter: its HOME, working directory
        and TMPDIR."""
        home = Path(tempfile.mkdtemp(prefix=f"amelia-mcp-{self.name}-"))
        self._home_dir = home
        home.chmod(0o700)
        if self._user is not None:
            self._user.own(home)
        return home

    def remove_home(self) -> None:
        """Remove the server's HOME with everything it wrote there (once it stopped)."""
        if self._home_dir is not None:
            shutil.rmtree(self._home_dir, ignore_errors=True)
            self._home_dir = None

    def _environment(self, home: Path) -> dict[str, str]:
        """What the agents' commands start from, without any credential variable, plus the
        server's own `env`."""
        base = {name: value for name, value in self._inherited.items() if not is_secret_name(name)}
        base.update({"HOME": str(home), "TMPDIR": str(home), "PWD": str(home)})
        if self._user is not None:
            base["USER"] = base["LOGNAME"] = self._user.name
        return {**base, **self.launch.env}

    def _stderr_tail(self, redactor: Redactor) -> str:
        try:
            text = self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        tail = one_line(" | ".join(lines[-_STDERR_TAIL_LINES:]))
        if not tail:
            return ""
        return f" — stderr: …{redactor.redact(tail)[-_STDERR_TAIL_CHARS:]}"

    # -- calling ----------------------------------------------------------------------------

    async def call(self, tool: str, arguments: dict[str, Any]) -> mcp_types.CallToolResult:
        """The server's result for `tool`, or an error-flagged result naming the server."""
        from mcp import MCPError

        client = self._client
        if client is None:
            return _error(f"MCP server {self.name} is not running ({self._ended or 'stopped'})")
        try:
            return await asyncio.wait_for(
                client.call_tool(tool, arguments), timeout=self.tool_timeout
            )
        except TimeoutError:
            return _error(
                f"MCP server {self.name} did not answer {tool} within {self.tool_timeout:g} s"
            )
        except MCPError as error:
            return _error(f"MCP server {self.name}: {error.error.message}")
        except Exception as error:
            return _error(f"MCP server {self.name} failed: {_reason(error)}")

    # -- stopping ---------------------------------------------------------------------------

    async def stop(self) -> None:
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self._ready is not None and not self._ready.done():
            # Still starting: nothing to finish, stop waiting for it.
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), _STOP_SECONDS)
        except TimeoutError:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
        except Exception as error:
            logger.debug("MCP server {} stopped: {}", self.name, _reason(error))


async def _list_tools(client: Client) -> tuple[mcp_types.Tool, ...]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    while len(tools) < _MAX_TOOLS:
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(tools[:_MAX_TOOLS])


@contextlib.asynccontextmanager
async def running_servers(
    servers: Sequence[ServerLaunch],
    *,
    user: AgentUser | None,
    inherited: Mapping[str, str],
    redactor: Redactor,
) -> AsyncIterator[dict[str, RunningServer]]:
    """Start `servers` one after the other (a failing one stops the rest again and raises
    `McpServerError`), yield them by name, stop them all on leaving."""
    scratch = Path(tempfile.mkdtemp(prefix="amelia-mcp-run-"))  # 0700, amelia's own
    running: list[RunningServer] = []
    try:
        for launch in servers:
            server = RunningServer(launch, user=user, inherited=inherited, scratch=scratch)
            running.append(server)
            await server.start(redactor)
            names = ", ".join(tool.name for tool in server.tools) or "none"
            logger.info("MCP server {} started; its tools: {}", server.name, names)
        yield {server.name: server for server in running}
    finally:
        try:
            for server in reversed(running):
                await server.stop()
        finally:
            if user is not None:
                await asyncio.to_thread(_stop_user_processes, user)
            for server in running:
                server.remove_home()
            shutil.rmtree(scratch, ignore_errors=True)


def _stop_user_processes(user: AgentUser) -> None:
    """Kill whatever the MCP user's processes of this run left (a daemon a server
    detached)."""
    import sys

    if not sys.platform.startswith("linux"):
        return
    from amelia.isolation.leftovers import descendants, stop_processes

    count, left = stop_processes(lambda: descendants(uid=user.uid), reason=MCP_STOP_REASON)
    if count:
        logger.info("stopped {} process(es) the MCP servers left behind", count)
    if left:
        logger.warning(
            "processes of the MCP user {} survived SIGKILL: {}",
            user.name,
            ", ".join(str(pid) for pid, _ in sorted(left)),
        )
