"""What the drivers of an Action run start from, for as long as the mode runs.

- The model credentials go into the credential proxy (`amelia.isolation.model_access`);
  the drivers get its URL and per-run token, which the run's redactor masks from then on.
- Child processes start from the settings' environment, which holds no credential once
  amelia restarted without them (`amelia.isolation.handoff`).
- On a runner, the Claude Code CLI keeps its configuration and session files in a fresh
  directory of the container's own temporary space, removed when the mode returns, instead
  of `~/.claude` under `/github/home`, which later steps of the job (and artifact uploads)
  read. amelia's own transcripts, redacted, stay under `Settings.action_home`.
- As root (the image), every agent process runs as the unprivileged agent user
  (`amelia.isolation.agent_user`), with a fresh HOME of its own; the CLI's configuration
  directory is that user's. Root without that user stops the run before any model request
  unless `AMELIA_AGENT_USER=none` says to run agents as root.
- The MCP servers the repository's configuration gives the agents start here
  (`amelia.mcp.runtime`), as the MCP user, behind a local gateway; each driver gets the
  servers of its agent. One that does not start stops the run before any model request.
"""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from amelia.config import Settings
from amelia.drivers.mcp import McpEndpoint
from amelia.drivers.runtime import DriverEnvironment
from amelia.isolation.agent_user import AgentUser, agent_home, resolve_agent_user
from amelia.isolation.model_access import ModelAccess, model_access, model_upstreams
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.isolation.proxy import ExchangeObserver
    from amelia.mcp.config import McpConfig

__all__ = ["agent_runtime"]


@asynccontextmanager
async def agent_runtime(
    settings: Settings,
    redactor: Redactor,
    *,
    runs_agents: bool,
    mcp: McpConfig | None = None,
    observer: ExchangeObserver | None = None,
) -> AsyncIterator[DriverEnvironment]:
    """The drivers' environment while the context lasts; without `runs_agents`, one
    without model credentials and nothing started. `observer` sees every model exchange
    of the credential proxy. Raises `ConfigError` for a credential
    or base URL the proxy cannot use, `McpServerError` for an MCP server of `mcp` that
    does not start."""
    async with AsyncExitStack() as stack:
        access = ModelAccess()
        grants: Mapping[str, tuple[McpEndpoint, ...]] = {}
        config_dir: Path | None = None
        agent: AgentUser | None = None
        if runs_agents:
            agent = resolve_agent_user(settings.amelia.agent_user)
            if agent is not None:
                agent = stack.enter_context(agent_home(agent))
            upstreams = model_upstreams(settings.model_credentials(), settings.environ)
            access = await stack.enter_async_context(model_access(upstreams, observer=observer))
            if access.token is not None:
                redactor.add_secrets([access.token])
            if settings.runner.actions or agent is not None:
                scratch = tempfile.TemporaryDirectory(
                    prefix="amelia-claude-", ignore_cleanup_errors=True
                )
                config_dir = Path(stack.enter_context(scratch))
                if agent is not None:
                    agent.own(config_dir)
            if mcp is not None:
                from amelia.mcp.runtime import mcp_runtime

                servers = mcp_runtime(mcp, settings, agent=agent, redactor=redactor)
                grants = await stack.enter_async_context(servers)
        yield DriverEnvironment(
            inherited=settings.environ,
            credentials=access.environment,
            home=settings.action_home,
            redactor=redactor,
            cli_config_dir=config_dir,
            agent=agent,
            mcp_grants=grants,
        )
