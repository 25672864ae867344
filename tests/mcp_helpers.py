"""The local MCP server of the tests (`tests/mcp_server.py`) as a configuration, and amelia's
gateway for it running in the test's own event loop."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from amelia.mcp.config import McpConfig
from amelia.mcp.gateway import McpGateway, grants_of
from amelia.mcp.servers import launches, running_servers
from amelia.mcp.values import ValueSources
from amelia.redaction import Redactor
from tests import mcp_server

SERVER = str(Path(mcp_server.__file__))
SECRET = "docs-key-0f3c9a7e51b24d68"
"""The docs server's `DOCS_API_KEY` in these tests."""


def docs_config(
    *,
    args: tuple[str, ...] = (),
    agents: Mapping[str, Any] | None = None,
    python: str = sys.executable,
    **server: Any,
) -> McpConfig:
    """`tests/mcp_server.py` (run by `python` with `args`; `-c …` instead of the script)
    as the server `docs`, with its secret; the developer gets all its tools, the reviewer
    `lookup`, unless `agents` says otherwise."""
    script = [] if args[:1] == ("-c",) else [SERVER]
    return McpConfig.model_validate(
        {
            "servers": {
                "docs": {
                    "command": python,
                    "args": [*script, *args],
                    "env": {"DOCS_API_KEY": {"secret": "DOCS_API_KEY"}},
                    **server,
                }
            },
            "agents": agents or {"developer": {"docs": "all"}, "reviewer": {"docs": ["lookup"]}},
        }
    )


@asynccontextmanager
async def running_gateway(chosen: McpConfig, redactor: Redactor) -> AsyncIterator[McpGateway]:
    """The servers of `chosen` started as this process's user (its secret from
    `SECRET`), behind a running gateway."""
    sources = ValueSources(secrets={"DOCS_API_KEY": SECRET})
    started = launches(chosen, sources)
    redactor.add_secrets([secret for launch in started for secret in launch.secrets])
    environ = {"PATH": os.environ.get("PATH", ""), "GH_TOKEN": "ghp_notForTheServer000000000001"}
    async with (
        running_servers(started, user=None, inherited=environ, redactor=redactor) as servers,
        McpGateway(servers, grants_of(chosen, servers), redactor=redactor) as running,
    ):
        yield running
