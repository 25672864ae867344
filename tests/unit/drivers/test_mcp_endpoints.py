"""Each driver gets its own agent's MCP servers (those of amelia's gateway), passes them on
as its engine takes them, named alike on both engines, and never with `read_files`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections import deque
from pathlib import Path
from typing import Any

import pytest

from amelia.core.types import Profile, ToolProfileName
from amelia.drivers.api.driver import ApiDriver
from amelia.drivers.api.mcp import mcp_toolsets
from amelia.drivers.cli._claude_mcp import write_mcp_config
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.mcp import McpEndpoint, mcp_servers_for, mcp_tool_name
from amelia.drivers.runtime import DriverEnvironment
from amelia.isolation.agent_user import AgentUser
from amelia.pipeline import default_make_driver

DOCS = McpEndpoint(name="docs", url="http://127.0.0.1:9/mcp/docs", token="amelia-mcp-dev")
TRACKER = McpEndpoint(name="tracker", url="http://127.0.0.1:9/mcp/tracker", token="amelia-mcp-dev")
REVIEWER_DOCS = McpEndpoint(name="docs", url=DOCS.url, token="amelia-mcp-rev")
GRANTS = {"developer": (DOCS, TRACKER), "reviewer": (REVIEWER_DOCS,)}


def environment() -> DriverEnvironment:
    return DriverEnvironment(inherited={"PATH": "/usr/bin"}, mcp_grants=GRANTS)


def test_each_role_gets_its_own_servers() -> None:
    assert environment().mcp_servers == ()
    assert environment().for_role("developer").mcp_servers == (DOCS, TRACKER)
    assert environment().for_role("reviewer").mcp_servers == (REVIEWER_DOCS,)
    assert environment().for_role("architect").mcp_servers == ()
    assert mcp_servers_for("read_files", (DOCS,)) == ()
    assert mcp_servers_for("read_only", (DOCS,)) == (DOCS,)
    assert DOCS.headers == {"Authorization": "Bearer amelia-mcp-dev"}
    assert "amelia-mcp-dev" not in repr(DOCS)
    assert mcp_tool_name("docs", "lookup") == "mcp__docs__lookup"


@pytest.mark.parametrize("key", ["cli:claude", "api:openai"])
def test_the_pipelines_drivers_get_their_roles_servers(key: str) -> None:
    make = default_make_driver(Profile(driver=key), environment=environment())
    developer: Any = make("developer", "full")
    reviewer: Any = make("reviewer", "read_only")
    assert developer.mcp == (DOCS, TRACKER) and reviewer.mcp == (REVIEWER_DOCS,)


def claude_options(profile: ToolProfileName, role: str = "developer") -> Any:
    driver = ClaudeCliDriver(tool_profile=profile, environment=environment().for_role(role))
    return driver._options("/tmp", None, "system", None, deque())


def test_claude_code_gets_the_gateway_as_http_servers() -> None:
    options = claude_options("full")
    assert options.mcp_servers == {
        "docs": {"type": "http", "url": DOCS.url, "headers": DOCS.headers},
        "tracker": {"type": "http", "url": TRACKER.url, "headers": TRACKER.headers},
    }
    assert {"mcp__docs", "mcp__tracker"} <= set(options.allowed_tools)
    assert options.strict_mcp_config
    reviewer = claude_options("read_only", "reviewer")
    assert list(reviewer.mcp_servers) == ["docs"] and "mcp__docs" in reviewer.allowed_tools
    for files in (claude_options("read_files"), claude_options("read_files", "reviewer")):
        assert files.mcp_servers == {} and files.strict_mcp_config
        assert not [rule for rule in files.allowed_tools if rule.startswith("mcp__")]
    # `generate` (no tools at all) gets no MCP server either.
    driver = ClaudeCliDriver(environment=environment().for_role("developer"))
    generating = driver._options("/tmp", None, "s", None, deque(), tools=[])
    assert generating.mcp_servers == {} and generating.allowed_tools == []


def test_pydantic_ai_gets_a_toolset_per_server_named_like_claude_codes() -> None:
    toolsets: list[Any] = mcp_toolsets((DOCS, TRACKER))
    assert [toolset.prefix for toolset in toolsets] == ["mcp__docs_", "mcp__tracker_"]
    inner = toolsets[0].wrapped
    assert inner.tool_error_behavior == "failed"
    driver = ApiDriver(model="openai:gpt-4o", environment=environment().for_role("reviewer"))
    assert driver.mcp == (REVIEWER_DOCS,)


def test_an_agent_without_servers_runs_without_loading_the_mcp_client() -> None:
    program = (
        "import sys\n"
        "from amelia.drivers.api.mcp import mcp_toolsets\n"
        "assert mcp_toolsets(()) == []\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastmcp', 'mcp')"
        " or m == 'pydantic_ai.mcp'))\n"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]"


def test_claude_code_reads_its_servers_from_a_file_only_its_user_may_read(
    tmp_path: Path,
) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir(mode=0o700)
    path = write_mcp_config(scratch, (DOCS,), owner=None)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {
        "mcpServers": {"docs": {"type": "http", "url": DOCS.url, "headers": DOCS.headers}}
    }
    driver = ClaudeCliDriver(environment=environment().for_role("developer"))
    options = driver._options("/tmp", None, "s", None, deque(), mcp_config=path)
    assert options.mcp_servers == str(path) and "mcp__docs" in options.allowed_tools
    if os.geteuid() == 0:
        other = scratch / "other"
        other.mkdir(mode=0o700)
        user = AgentUser(uid=40001, gid=40001, name="agent", setpriv="/usr/bin/setpriv")
        owned = write_mcp_config(other, (DOCS,), owner=user)
        assert (owned.stat().st_uid, stat.S_IMODE(other.stat().st_mode)) == (40001, 0o711)
