"""The MCP SDK's own client through amelia's gateway to a local MCP server (a command amelia
starts, `tests/mcp_server.py`): each agent's token opens only its servers and lists only
its tools, results are redacted, a server that does not start or answer is named, and the
server's process is gone once the context ends."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from mcp import Client
from mcp import types as mcp_types
from mcp.client.streamable_http import streamable_http_client

from amelia.drivers.mcp import McpEndpoint
from amelia.errors import ConfigError, McpServerError
from amelia.mcp.gateway import MAX_RESULT_CHARS, redacted_result
from amelia.redaction import MASK, Redactor
from tests import mcp_server
from tests.mcp_helpers import SECRET, docs_config, running_gateway


@asynccontextmanager
async def agent_client(endpoint: McpEndpoint) -> AsyncIterator[Client]:
    async with (
        httpx2.AsyncClient(headers=endpoint.headers) as http,
        Client(streamable_http_client(endpoint.url, http_client=http)) as client,
    ):
        yield client


def text_of(result: mcp_types.CallToolResult) -> str:
    return "\n".join(b.text for b in result.content if isinstance(b, mcp_types.TextContent))


async def test_each_agent_reaches_only_the_tools_it_was_given() -> None:
    redactor = Redactor()
    async with running_gateway(docs_config(), redactor) as running:
        (developer,) = running.endpoints("developer")
        (reviewer,) = running.endpoints("reviewer")
        assert running.endpoints("architect") == []
        assert developer.url == reviewer.url == f"{running.url}/mcp/docs"
        assert developer.token != reviewer.token

        async with agent_client(developer) as client:
            listed = {tool.name for tool in (await client.list_tools()).tools}
            assert listed == {"lookup", "whisper", "fail"}
            answer = await client.call_tool("lookup", {"topic": "greet"})
            assert not answer.is_error
            assert text_of(answer) == mcp_server.DOCS["greet"]
            # The server's secret never reaches an agent, even when a tool says it.
            whispered = text_of(await client.call_tool("whisper", {}))
            assert SECRET not in whispered and whispered == f"my key is {MASK}"
            failed = await client.call_tool("fail", {"reason": "maintenance"})
            assert failed.is_error and "docs are down: maintenance" in text_of(failed)

        async with agent_client(reviewer) as client:
            assert [tool.name for tool in (await client.list_tools()).tools] == ["lookup"]
            refused = await client.call_tool("whisper", {})
            assert refused.is_error
            assert "has no tool whisper for this agent" in text_of(refused)


async def test_a_request_without_the_token_is_refused() -> None:
    async with running_gateway(docs_config(), Redactor()) as running:
        (developer,) = running.endpoints("developer")
        async with httpx2.AsyncClient() as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            for headers in ({}, {"Authorization": "Bearer amelia-mcp-guessed"}):
                answer = await http.post(developer.url, json=body, headers=headers)
                assert answer.status_code == 401
            other = developer.url.replace("/mcp/docs", "/mcp/tracker")
            answer = await http.post(other, json=body, headers=developer.headers)
            assert answer.status_code == 404


async def test_a_tool_the_server_lacks_is_a_configuration_error() -> None:
    chosen = docs_config(agents={"developer": {"docs": ["lookup", "search"]}})
    with pytest.raises(ConfigError) as raised:
        async with running_gateway(chosen, Redactor()):
            pass
    assert raised.value.message == (
        "mcp.agents.developer.docs: the MCP server docs has no tool search "
        "(it has: lookup, whisper, fail)"
    )


async def test_a_server_that_exits_is_named_with_what_it_said(tmp_path: Path) -> None:
    chosen = docs_config(args=("-c", "import sys; sys.exit('cannot log in')"))
    with pytest.raises(McpServerError) as raised:
        async with running_gateway(chosen, Redactor()):
            pass
    message = raised.value.message
    assert message.startswith("MCP server docs did not start: ")
    assert "stderr: …cannot log in" in message
    assert "\n" not in message


async def test_a_server_that_does_not_answer_is_named_and_stopped(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    chosen = docs_config(args=("--hang", "--pid-file", str(pid_file)), startup_timeout_seconds=0.5)
    with pytest.raises(McpServerError) as raised:
        async with running_gateway(chosen, Redactor()):
            pass
    assert raised.value.message == "MCP server docs did not answer within 0.5 s"
    assert not Path(f"/proc/{pid_file.read_text()}").exists()


async def test_the_servers_process_ends_with_the_context(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    async with running_gateway(docs_config(args=("--pid-file", str(pid_file))), Redactor()):
        pid = int(pid_file.read_text())
        assert Path(f"/proc/{pid}").exists()
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        # The server starts from the agents' environment, without its credentials, and
        # gets its own secret.
        assert f"DOCS_API_KEY={SECRET}".encode() in environ
        assert not any(entry.startswith(b"GH_TOKEN=") for entry in environ)
    assert not Path(f"/proc/{pid}").exists()


def test_results_are_redacted_and_cut_to_size() -> None:
    redactor = Redactor(secrets=[SECRET])
    result = mcp_types.CallToolResult(
        content=[
            mcp_types.TextContent(type="text", text=f"key {SECRET} " + "x" * MAX_RESULT_CHARS),
            mcp_types.TextContent(type="text", text="more"),
        ],
        structured_content={"key": SECRET, "token": "ghp_abcdefghijklmnopqrstuvwxyz0123"},
    )
    shown = redacted_result(result, redactor)
    first, second = (
        block.text for block in shown.content if isinstance(block, mcp_types.TextContent)
    )
    assert first.startswith(f"key {MASK} ") and "cut here" in first
    assert len(first) < MAX_RESULT_CHARS + 100
    assert second.startswith("\n[… cut here")
    assert shown.structured_content == {"key": MASK, "token": MASK}
