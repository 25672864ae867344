"""amelia's MCP servers as Claude Code takes them: `mcp_servers` entries of type `http`.

Each server of amelia's gateway the agent was given becomes an entry named after it, with
the gateway's URL and the agent's token as a bearer header; the CLI names its tools
`mcp__<server>__<tool>`. A permission rule `mcp__<server>` lets them run without asking
(in SDK mode a tool that would ask is refused): the gateway lists only the tools the agent
was given, and refuses any other. With `strict_mcp_config` (always set), no other MCP
server configuration counts.
"""

from __future__ import annotations

from collections.abc import Sequence

from claude_agent_sdk.types import McpHttpServerConfig, McpServerConfig

from amelia.drivers.mcp import McpEndpoint


def claude_mcp_servers(servers: Sequence[McpEndpoint]) -> dict[str, McpServerConfig]:
    """The `mcp_servers` option for `servers`."""
    found: dict[str, McpServerConfig] = {}
    for server in servers:
        found[server.name] = McpHttpServerConfig(
            type="http", url=server.url, headers=server.headers
        )
    return found


def claude_mcp_rules(servers: Sequence[McpEndpoint]) -> list[str]:
    """`allowed_tools` rules that let every tool of `servers` run."""
    return [server.tool_prefix.removesuffix("__") for server in servers]
