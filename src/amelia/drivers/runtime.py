"""What a driver's processes start from, handed to it explicitly by whoever creates it.

amelia reads its own process environment in one place (`amelia.config`) and passes the
result down: a driver never looks at the process environment itself. `inherited` is what
the driver's child processes (the Claude Code CLI, an agent's shell commands) start from,
minus its secrets; `credentials` are the variables that reach the model (API keys, base
URLs), for this driver only; `home` is where transcripts and sessions go, masked by
`redactor`; `cli_config_dir` is the Claude Code CLI's own configuration directory; `agent` the
unprivileged user every agent process runs as (`amelia.isolation.agent_user`);
`mcp_grants` the MCP servers of the run per agent, of which `for_role` makes a driver's
`mcp_servers` (`amelia.drivers.mcp`).

A driver made without one (`amelia.drivers.default_environment`) gets the one amelia's
settings reader builds from the process environment (`amelia.config.driver_environment`):
secrets are never handed to child processes just because nobody said what to hand them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path

from amelia.drivers.mcp import McpEndpoint
from amelia.isolation.agent_user import AgentUser
from amelia.redaction import Redactor

__all__ = ["DriverEnvironment"]


@dataclass(frozen=True)
class DriverEnvironment:
    """The environment, model credentials and home directory of a driver."""

    _: KW_ONLY
    inherited: Mapping[str, str] = field(default_factory=dict, repr=False)
    """What child processes start from; drivers blank or drop its secrets."""
    credentials: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Variables the model connection needs (e.g. OPENAI_API_KEY, ANTHROPIC_BASE_URL)."""
    home: Path | None = None
    """Transcripts and sessions go under it; None: `~/.amelia`."""
    redactor: Redactor | None = field(default=None, repr=False)
    """Masks the run's secrets in what the driver writes under `home`; None: token
    patterns only."""
    cli_config_dir: Path | None = None
    """Where the Claude Code CLI keeps its configuration and sessions (CLAUDE_CONFIG_DIR);
    None: the CLI's own default, `~/.claude`."""
    agent: AgentUser | None = None
    """The unprivileged user the CLI, the shell tool and the test command run as, with its
    fresh HOME; None: amelia's own user."""
    proxy_model_keys: bool = False
    """`credentials` hold the real model keys (a library caller's default environment):
    the Claude Code driver then runs the credential proxy for its runs and hands the CLI
    the proxy's URL and a per-run token, so no command of the agent's finds the key.
    amelia's own commands hand over the proxy's token already (False)."""

    mcp_grants: Mapping[str, tuple[McpEndpoint, ...]] = field(default_factory=dict, repr=False)
    """The run's MCP servers each agent was given, by role (`amelia.mcp`)."""
    mcp_servers: tuple[McpEndpoint, ...] = field(default=(), repr=False)
    """The MCP servers this driver's agent reaches; none unless `for_role` chose them."""

    def for_role(self, role: str) -> DriverEnvironment:
        """This environment for the driver of `role`: with the MCP servers it was given."""
        return replace(self, mcp_servers=tuple(self.mcp_grants.get(role, ())))

    def lookup(self, name: str) -> str:
        """`name` from the credentials, else from the inherited environment, else ""."""
        return (self.credentials.get(name) or self.inherited.get(name) or "").strip()
