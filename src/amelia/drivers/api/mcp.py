"""amelia's MCP servers as pydantic-ai takes them: one MCP toolset per server.

Each server of amelia's gateway the agent was given becomes an `MCPToolset` on the
gateway's URL with the agent's token as a bearer header, its tools prefixed so they are
called `mcp__<server>__<tool>`, as Claude Code calls them. A tool result flagged as an
error reaches the model as a failed tool call (`ToolFailed`), like the driver's own tools'
refusals, and the run records it as an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.toolsets import AbstractToolset

from amelia.drivers.mcp import McpEndpoint

__all__ = ["mcp_toolsets"]

_CONNECT_SECONDS = 30.0
_READ_MARGIN_SECONDS = 30.0
"""The gateway answers a call that takes too long itself; the client waits a little longer."""


def mcp_toolsets(servers: Sequence[McpEndpoint]) -> list[AbstractToolset[Any]]:
    """A toolset per server of `servers`, named like Claude Code names their tools.
    Without servers, pydantic-ai's MCP client (about 0.9 s of imports) is never loaded."""
    if not servers:
        return []
    from pydantic_ai.mcp import MCPToolset

    toolsets: list[AbstractToolset[Any]] = []
    for server in servers:
        toolset: MCPToolset[Any] = MCPToolset(
            server.url,
            id=f"mcp-{server.name}",
            headers=server.headers,
            tool_error_behavior="failed",
            init_timeout=_CONNECT_SECONDS,
            read_timeout=server.tool_timeout_seconds + _READ_MARGIN_SECONDS,
        )
        # PrefixedToolset joins prefix and name with "_".
        toolsets.append(toolset.prefixed(server.tool_prefix.removesuffix("_")))
    return toolsets
