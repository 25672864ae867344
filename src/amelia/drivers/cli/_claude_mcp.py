"""amelia's MCP servers as Claude Code takes them: `mcp_servers` entries of type `http`.

Each server of amelia's gateway the agent was given becomes an entry named after it, with
the gateway's URL and the agent's token as a bearer header; the CLI names its tools
`mcp__<server>__<tool>`. A permission rule `mcp__<server>` lets them run without asking
(in SDK mode a tool that would ask is refused): the gateway lists only the tools the agent
was given, and refuses any other. With `strict_mcp_config` (always set), no other MCP
server configuration counts.

The entries reach the CLI in a file (`--mcp-config <file>`), readable by the CLI's user
alone, not as JSON on its command line: every user of the machine can read a process's
command line, and the token opens the agent's tools.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from claude_agent_sdk.types import McpHttpServerConfig, McpServerConfig

from amelia.drivers.mcp import McpEndpoint
from amelia.isolation.agent_user import AgentUser

MCP_CONFIG_FILE = "mcp.json"


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


def write_mcp_config(
    directory: Path, servers: Sequence[McpEndpoint], *, owner: AgentUser | None
) -> Path:
    """`servers` as the CLI's `--mcp-config` file in `directory` (amelia's own), mode 0600
    and the CLI's user's (`owner`; None: amelia's). With an owner, `directory` becomes
    enterable (not listable) so that user opens the file by its name."""
    path = directory / MCP_CONFIG_FILE
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"mcpServers": claude_mcp_servers(servers)}, handle)
    if owner is not None:
        owner.own(path)
        directory.chmod(0o711)
    return path
