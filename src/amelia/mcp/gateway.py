"""The one local endpoint through which the agents reach every MCP server of a run.

    async with McpGateway(servers, grants, redactor=redactor) as gateway:
        gateway.endpoints("developer")   # [McpEndpoint(name, url, token), …]

The gateway listens on 127.0.0.1 on a random port inside amelia's process and serves each
server as a streamable-HTTP MCP endpoint at `/mcp/<server>`. Each agent that was given
tools has its own per-run token (`Authorization: Bearer …`); a request without a known
token is answered 401, a server the token's agent was not given 404. An agent sees only
the tools it was given (`tools/list`), and a call to any other is an error-flagged result.
Every result passes the run's redactor before the agent sees it, and is cut to
`MAX_RESULT_CHARS`.

The tokens are worth only what their agent was given, only while the run lasts; the
servers' own credentials (a command's `env`, a URL's `headers`) never leave amelia's
process or the server's own.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import secrets
import socket
from collections.abc import Iterator, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Final

from loguru import logger

from amelia.core.types import AgentRole
from amelia.drivers.mcp import McpEndpoint
from amelia.errors import ConfigError
from amelia.mcp.config import McpConfig
from amelia.mcp.servers import RunningServer
from amelia.redaction import Redactor

if TYPE_CHECKING:
    import uvicorn
    from mcp import types as mcp_types
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

__all__ = [
    "GATEWAY_PATH",
    "MAX_RESULT_CHARS",
    "McpGateway",
    "grants_of",
    "redacted_result",
]

GATEWAY_PATH: Final = "/mcp/"
MAX_RESULT_CHARS: Final = 100_000
"""Text of one tool result beyond this is cut, with a note saying so."""
_TOKEN_PREFIX: Final = "amelia-mcp-"  # noqa: S105 (a label, not a secret)
_STOP_SECONDS: Final = 10.0
_LIBRARY_LOGGERS: Final = ("mcp", "uvicorn", "fastmcp", "httpx2")

Grants = Mapping[AgentRole, Mapping[str, frozenset[str]]]
"""Per agent, per server, the names of the tools it may use."""


def grants_of(config: McpConfig, servers: Mapping[str, RunningServer]) -> Grants:
    """Each agent's tools, per server, from `mcp.agents` and the tools the servers list.
    Raises `ConfigError` for a listed tool a server does not have."""
    grants: dict[AgentRole, dict[str, frozenset[str]]] = {}
    for role in ("architect", "developer", "reviewer", "answerer"):
        chosen: dict[str, frozenset[str]] = {}
        for name, tools in config.agents.of(role).items():
            offered = [tool.name for tool in servers[name].tools]
            if tools == "all":
                chosen[name] = frozenset(offered)
                continue
            missing = [tool for tool in tools if tool not in offered]
            if missing:
                raise ConfigError(
                    f"mcp.agents.{role}.{name}: the MCP server {name} has no tool "
                    f"{', '.join(missing)} (it has: {', '.join(offered) or 'none'})"
                )
            chosen[name] = frozenset(tools)
        if chosen:
            grants[role] = chosen
    return grants


def _cut(text: str, room: int) -> str:
    if len(text) <= room:
        return text
    note = f"\n[… cut here: a result is cut at {MAX_RESULT_CHARS:,} characters]"
    return text[: max(room, 0)] + note


def redacted_result(
    result: mcp_types.CallToolResult, redactor: Redactor
) -> mcp_types.CallToolResult:
    """`result` as an agent may see it: every text redacted and cut to size."""
    from mcp import types as mcp_types

    room = MAX_RESULT_CHARS
    content: list[mcp_types.ContentBlock] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            text = _cut(redactor.redact(block.text), room)
            room -= len(text)
            block = block.model_copy(update={"text": text})
        elif isinstance(block, mcp_types.EmbeddedResource) and isinstance(
            block.resource, mcp_types.TextResourceContents
        ):
            text = _cut(redactor.redact(block.resource.text), room)
            room -= len(text)
            block = block.model_copy(
                update={"resource": block.resource.model_copy(update={"text": text})}
            )
        content.append(block)
    structured = result.structured_content
    if structured is not None:
        encoded = redactor.redact_json(json.dumps(structured))
        structured = json.loads(encoded) if len(encoded) <= MAX_RESULT_CHARS else None
    return mcp_types.CallToolResult(
        content=content, structured_content=structured, is_error=result.is_error
    )


class _ToLoguru(logging.Handler):
    """The MCP SDK's and the HTTP server's log records, through amelia's (redacting) log."""

    def emit(self, record: logging.LogRecord) -> None:
        level = "WARNING" if record.levelno >= logging.WARNING else "DEBUG"
        message = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            error = record.exc_info[1]
            message += f" ({type(error).__name__}: {error})"
        logger.log(level, "{}: {}", record.name, message)


@contextlib.contextmanager
def _library_logs() -> Iterator[None]:
    handler = _ToLoguru()
    saved = []
    for name in _LIBRARY_LOGGERS:
        library = logging.getLogger(name)
        saved.append((library, library.propagate))
        library.addHandler(handler)
        library.propagate = False
    try:
        yield
    finally:
        for library, propagate in saved:
            library.removeHandler(handler)
            library.propagate = propagate


class McpGateway:
    """Serves `servers` to the agents of `grants` on 127.0.0.1; an async context."""

    def __init__(
        self, servers: Mapping[str, RunningServer], grants: Grants, *, redactor: Redactor
    ) -> None:
        self._servers = servers
        self._grants = grants
        self._redactor = redactor
        self._tokens: dict[AgentRole, str] = {
            role: _TOKEN_PREFIX + secrets.token_urlsafe(32) for role in grants
        }
        self._managers: dict[tuple[AgentRole, str], StreamableHTTPSessionManager] = {}
        self._socket: socket.socket | None = None
        self._http: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._port = 0

    @property
    def tokens(self) -> list[str]:
        """Every agent's token; redact them like any credential."""
        return list(self._tokens.values())

    @property
    def url(self) -> str:
        if self._task is None:
            raise RuntimeError("the MCP gateway is not running")
        return f"http://127.0.0.1:{self._port}"

    def endpoints(self, role: AgentRole) -> list[McpEndpoint]:
        """The servers `role` was given, each at its URL with `role`'s token."""
        token = self._tokens.get(role)
        if token is None:
            return []
        return [
            McpEndpoint(
                name=name,
                url=f"{self.url}{GATEWAY_PATH}{name}",
                token=token,
                tool_timeout_seconds=self._servers[name].tool_timeout,
            )
            for name in self._grants[role]
        ]

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> McpGateway:
        if self._task is not None:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        sock.setblocking(False)
        self._socket = sock
        self._port = int(sock.getsockname()[1])
        for role, servers in self._grants.items():
            for name, tools in servers.items():
                self._managers[(role, name)] = self._manager(self._servers[name], tools)
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._serve(ready), name="mcp-gateway")
        try:
            await ready
        except BaseException:
            await self.stop()
            raise
        return self

    async def stop(self) -> None:
        task, self._task = self._task, None
        if self._http is not None:
            self._http.should_exit = True
        if task is not None and not task.done():
            try:
                await asyncio.wait_for(asyncio.shield(task), _STOP_SECONDS)
            except TimeoutError:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            except Exception as error:
                logger.warning("the MCP gateway stopped with an error: {}", error)
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    async def __aenter__(self) -> McpGateway:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        """Own the session managers and the HTTP server from start to stop (their task
        groups must be left by the task that entered them)."""
        import uvicorn

        try:
            with _library_logs():
                async with contextlib.AsyncExitStack() as stack:
                    for manager in self._managers.values():
                        await stack.enter_async_context(manager.run())
                    config = uvicorn.Config(
                        self._asgi,
                        interface="asgi3",
                        lifespan="off",
                        log_config=None,
                        access_log=False,
                        http="h11",
                        ws="none",
                        timeout_graceful_shutdown=2,
                    )
                    config.load()
                    # `serve()` would take SIGTERM and SIGINT, which amelia handles itself
                    # (it stops the run and reports): its steps without that.
                    http = self._http = uvicorn.Server(config)
                    http.lifespan = config.lifespan_class(config)
                    assert self._socket is not None
                    await http.startup(sockets=[self._socket])
                    ready.set_result(None)
                    await http.main_loop()
                    await http.shutdown(sockets=[self._socket])
        except BaseException as error:
            if not ready.done():
                ready.set_exception(error if isinstance(error, Exception) else RuntimeError())
            if isinstance(error, asyncio.CancelledError):
                raise
            logger.warning("the MCP gateway stopped: {}", error)

    # -- serving ----------------------------------------------------------------------------

    def _manager(
        self, server: RunningServer, tools: frozenset[str]
    ) -> StreamableHTTPSessionManager:
        from mcp import types as mcp_types
        from mcp.server.context import ServerRequestContext
        from mcp.server.lowlevel import Server
        from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
        from mcp.server.transport_security import TransportSecuritySettings

        offered = [tool for tool in server.tools if tool.name in tools]
        redactor = self._redactor

        async def list_tools(
            ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
        ) -> mcp_types.ListToolsResult:
            return mcp_types.ListToolsResult(tools=offered)

        async def call_tool(
            ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
        ) -> mcp_types.CallToolResult:
            if params.name not in tools:
                return mcp_types.CallToolResult(
                    content=[
                        mcp_types.TextContent(
                            type="text",
                            text=f"the MCP server {server.name} has no tool {params.name} "
                            "for this agent",
                        )
                    ],
                    is_error=True,
                )
            result = await server.call(params.name, dict(params.arguments or {}))
            return redacted_result(result, redactor)

        lowlevel: Server[Any] = Server(
            f"amelia-{server.name}", on_list_tools=list_tools, on_call_tool=call_tool
        )
        here = [f"127.0.0.1:{self._port}", f"localhost:{self._port}"]
        return StreamableHTTPSessionManager(
            app=lowlevel,
            stateless=True,
            json_response=True,
            security_settings=TransportSecuritySettings(
                enable_dns_rebinding_protection=True,
                allowed_hosts=here,
                allowed_origins=[f"http://{host}" for host in here],
            ),
        )

    def _role(self, headers: list[tuple[bytes, bytes]]) -> AgentRole | None:
        offered = [
            value[7:].strip()
            for name, value in headers
            if name.lower() == b"authorization" and value[:7].lower() == b"bearer "
        ]
        found: AgentRole | None = None
        for role, token in self._tokens.items():
            expected = token.encode("ascii")
            if any(hmac.compare_digest(candidate, expected) for candidate in offered):
                found = role
        return found

    async def _asgi(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        role = self._role(scope.get("headers", []))
        if role is None:
            await _answer(send, 401, "the gateway token is missing or wrong")
            return
        path: str = scope.get("path", "")
        name = path[len(GATEWAY_PATH) :].rstrip("/") if path.startswith(GATEWAY_PATH) else ""
        manager = self._managers.get((role, name))
        if manager is None:
            await _answer(send, 404, f"{path} is not served to this agent")
            return
        await manager.handle_request(scope, receive, send)


async def _answer(send: Any, status: int, message: str) -> None:
    body = json.dumps({"error": f"amelia MCP gateway: {message}"}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
