"""The MCP servers of one run, from the configuration to what each agent's driver gets.

    async with mcp_runtime(config, settings, agent=agent_user, redactor=redactor) as grants:
        DriverEnvironment(mcp_grants=grants, ...)

Fills in each used server's values (`amelia.mcp.values`; the run's redactor masks them
from then on), starts the servers (`amelia.mcp.servers`, a command as the MCP user of
`AMELIA_MCP_USER`), checks every tool the configuration names exists, and serves them
through the gateway (`amelia.mcp.gateway`), whose per-agent tokens the redactor masks
too. It yields, per agent, the `McpEndpoint`s it reaches; none when no agent was given a
server. Raises `ConfigError` (a value that cannot be filled in, an unknown tool, a bad
`AMELIA_MCP_USER`) or `McpServerError` (a server that did not start or answer) before any
agent runs; everything it started is stopped again when the context ends.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

from amelia.drivers.mcp import McpEndpoint
from amelia.isolation.agent_user import AgentUser
from amelia.mcp.config import McpConfig
from amelia.mcp.values import ValueSources
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.config import Settings

__all__ = ["mcp_runtime"]


@asynccontextmanager
async def mcp_runtime(
    config: McpConfig,
    settings: Settings,
    *,
    agent: AgentUser | None,
    redactor: Redactor,
) -> AsyncIterator[Mapping[str, tuple[McpEndpoint, ...]]]:
    """Every agent's MCP servers while the context lasts (see the module docstring)."""
    if not config.used():
        yield {}
        return
    from amelia.isolation.mcp_user import resolve_mcp_user
    from amelia.mcp.gateway import McpGateway, grants_of
    from amelia.mcp.servers import launches, running_servers

    secrets = settings.inputs.mcp_secrets
    sources = ValueSources.of(
        {**settings.environ, **settings.secrets},
        mcp_secrets="" if secrets is None else secrets.get_secret_value(),
    )
    started = launches(config, sources)
    for launch in started:
        redactor.add_secrets(launch.secrets)
    user = None
    if any(launch.config.transport == "stdio" for launch in started):
        user = resolve_mcp_user(settings.amelia.mcp_user, agent=agent)
    async with running_servers(
        started, user=user, inherited=settings.environ, redactor=redactor
    ) as servers:
        grants = grants_of(config, servers)
        async with McpGateway(servers, grants, redactor=redactor) as gateway:
            redactor.add_secrets(gateway.tokens)
            yield {role: tuple(gateway.endpoints(role)) for role in grants}
