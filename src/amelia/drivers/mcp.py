"""MCP servers as a driver hands them to its agent: through amelia's gateway, never directly.

amelia starts the configured MCP servers and serves each at one local URL with a per-run
token for each agent (`amelia.mcp.gateway`); a driver gets the `McpEndpoint`s of its
agent in its environment (`DriverEnvironment.mcp_servers`) and passes them on as its
engine expects them: Claude Code as `mcp_servers` entries of type `http`, pydantic-ai as
MCP toolsets. Both name a tool `mcp__<server>__<tool>`, so the same configuration gives
both drivers the same tools under the same names. A driver with the `read_files` profile
(content that must stay data, such as a fork's pull request) never passes any on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from amelia.core.types import ToolProfileName

__all__ = ["McpEndpoint", "mcp_servers_for", "mcp_tool_name"]


@dataclass(frozen=True, kw_only=True)
class McpEndpoint:
    """One MCP server as an agent reaches it: the gateway's URL for it, the agent's token."""

    name: str
    url: str
    token: str = field(repr=False)
    tool_timeout_seconds: float = 300.0
    """How long the gateway lets one tool call take before it answers with an error."""

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}

    @property
    def tool_prefix(self) -> str:
        """What every tool name of this server starts with: `mcp__<server>__`."""
        return f"mcp__{self.name}__"


def mcp_tool_name(server: str, tool: str) -> str:
    """The name an agent calls `tool` of `server` by, on every driver."""
    return f"mcp__{server}__{tool}"


def mcp_servers_for(
    profile: ToolProfileName, servers: Sequence[McpEndpoint]
) -> tuple[McpEndpoint, ...]:
    """The servers a driver with `profile` passes on: none for `read_files`."""
    return () if profile == "read_files" else tuple(servers)
