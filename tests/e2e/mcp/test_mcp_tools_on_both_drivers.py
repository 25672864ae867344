"""A scripted model calls a tool of a local MCP server (`tests/mcp_server.py`, built with the
`mcp` package) through amelia's gateway, on both drivers: the Claude Code CLI against the
scripted Anthropic server, pydantic-ai's real OpenAI provider against the scripted
OpenAI-compatible server. The same configuration gives both the same tools under the same
names; the result reaches the model and the run's messages (the progress), a failing tool
is an error-flagged result, and a driver with the `read_files` profile gets no MCP tool."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from amelia.core.types import AgentRole, ToolProfileName
from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment
from amelia.mcp.gateway import McpGateway
from amelia.redaction import MASK, Redactor
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing import anthropic_server as anthropic
from amelia.testing import openai_server as openai
from amelia.testing.scripted_claude import scripted_claude_environment
from tests import mcp_server
from tests.git_helpers import init_repo
from tests.mcp_helpers import SECRET, docs_config, running_gateway

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(180),
    # One event loop for the module, so its tests share the one gateway it runs.
    pytest.mark.asyncio(loop_scope="module"),
]

T = AgenticMessageType
LOOKUP = "mcp__docs__lookup"
ANSWER = mcp_server.DOCS["greet"]
DEVELOPER_TOOLS = {"mcp__docs__lookup", "mcp__docs__whisper", "mcp__docs__fail"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def gateway() -> AsyncIterator[tuple[McpGateway, Redactor]]:
    """The docs server behind a running gateway, started once for the module's tests: it
    answers each tool call on its own, and each test checks only its own calls and what
    its own driver's model was offered."""
    redactor = Redactor()
    async with running_gateway(docs_config(), redactor) as running:
        yield running, redactor


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "checkout", {"README.md": "# demo\n"})


def environment(
    gateway: McpGateway, redactor: Redactor, home: Path, role: AgentRole
) -> DriverEnvironment:
    """What amelia hands the driver of `role`: the process's environment, the run's
    redactor, every agent's MCP servers, and this agent's chosen (`for_role`)."""
    grants = {agent: tuple(gateway.endpoints(agent)) for agent in ("developer", "reviewer")}
    return DriverEnvironment(
        inherited=dict(os.environ), home=home, redactor=redactor, mcp_grants=grants
    ).for_role(role)


def of_type(messages: list[AgenticMessage], kind: AgenticMessageType) -> list[AgenticMessage]:
    return [message for message in messages if message.type == kind]


async def collect(driver: Any, cwd: Path) -> list[AgenticMessage]:
    return [m async for m in driver.execute_agentic("Find the docs of greet.", str(cwd))]


def assert_the_lookup_reached_the_progress(messages: list[AgenticMessage]) -> None:
    (call,) = [m for m in of_type(messages, T.TOOL_CALL) if m.tool_name == LOOKUP]
    assert call.tool_input == {"topic": "greet"}
    (result,) = [m for m in of_type(messages, T.TOOL_RESULT) if m.tool_name == LOOKUP]
    assert result.tool_call_id == call.tool_call_id and not result.is_error
    assert ANSWER in (result.tool_output or "")
    event = result.to_stream_event("developer", "w1")  # what the sinks get
    assert event.tool_name == LOOKUP and ANSWER in (event.content or "")
    assert messages[-1].type == T.RESULT and not messages[-1].is_error


# -- Claude Code ------------------------------------------------------------------------------


def claude_driver(
    server: ScriptedAnthropicServer,
    tmp_path: Path,
    environment_of: Callable[[Path], DriverEnvironment],
    tool_profile: ToolProfileName = "full",
) -> ClaudeCliDriver:
    home = tmp_path / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = {**scripted_claude_environment(server.url, home / ".claude"), "HOME": str(home)}
    return ClaudeCliDriver(
        tool_profile=tool_profile,
        timeout_seconds=120,
        env=env,
        environment=environment_of(tmp_path / "amelia-home"),
    )


def offered(server: ScriptedAnthropicServer) -> set[str]:
    """The MCP tools the CLI offered the model, in any request."""
    names = {
        tool["name"]
        for request in server.requests
        for tool in (request.body or {}).get("tools", [])
    }
    return {name for name in names if name.startswith("mcp__")}


async def test_claude_code_calls_an_mcp_tool_through_the_gateway(
    gateway: tuple[McpGateway, Redactor], checkout: Path, tmp_path: Path
) -> None:
    running, redactor = gateway
    script: list[anthropic.Turn] = [
        [anthropic.tool_use(LOOKUP, {"topic": "greet"}, id="toolu_lookup")],
        [anthropic.tool_use("mcp__docs__whisper", {}, id="toolu_whisper")],
        [anthropic.tool_use("mcp__docs__fail", {"reason": "maintenance"}, id="toolu_fail")],
        [anthropic.text("greet says hello.")],
    ]
    server = ScriptedAnthropicServer(script).start()
    try:
        driver = claude_driver(
            server, tmp_path, lambda home: environment(running, redactor, home, "developer")
        )
        messages = await collect(driver, checkout)
    finally:
        server.stop()

    assert_the_lookup_reached_the_progress(messages)
    assert offered(server) == DEVELOPER_TOOLS
    # The model got the tool's answer, redacted where the server said its secret …
    results = [
        block
        for request in server.requests
        for message in (request.body or {}).get("messages", [])
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    by_id = {block["tool_use_id"]: json.dumps(block.get("content")) for block in results}
    assert ANSWER in by_id["toolu_lookup"]
    assert f"my key is {MASK}" in by_id["toolu_whisper"]
    assert SECRET not in json.dumps([request.body for request in server.requests])
    # … and a failing tool is an error-flagged result.
    (failed,) = [m for m in of_type(messages, T.TOOL_RESULT) if m.tool_name == "mcp__docs__fail"]
    assert failed.is_error and "docs are down: maintenance" in (failed.tool_output or "")
    # The transcript has the call and the result, with the secret masked.
    assert driver.last_transcript_path is not None
    transcript = driver.last_transcript_path.read_text(encoding="utf-8")
    assert LOOKUP in transcript and ANSWER in transcript and SECRET not in transcript


async def test_claude_code_reviewer_gets_only_its_tool_and_read_files_none(
    gateway: tuple[McpGateway, Redactor], checkout: Path, tmp_path: Path
) -> None:
    running, redactor = gateway
    for profile, expected in (("read_only", {LOOKUP}), ("read_files", set())):
        server = ScriptedAnthropicServer([[anthropic.text("Nothing to look up.")]]).start()
        try:
            driver = claude_driver(
                server,
                tmp_path / profile,
                lambda home: environment(running, redactor, home, "reviewer"),
                tool_profile=profile,  # type: ignore[arg-type]
            )
            messages = await collect(driver, checkout)
        finally:
            server.stop()
        assert messages[-1].type == T.RESULT and not messages[-1].is_error
        assert offered(server) == expected, profile


# -- pydantic-ai --------------------------------------------------------------------------------


def api_driver(
    server: ScriptedOpenAIServer,
    running: McpGateway,
    redactor: Redactor,
    tmp_path: Path,
    role: AgentRole = "developer",
    tool_profile: ToolProfileName = "full",
) -> ApiDriver:
    base = environment(running, redactor, tmp_path / "amelia-home", role)
    credentials = {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test-openai-key-0001"}
    return ApiDriver(
        model="openai:gpt-4o",
        tool_profile=tool_profile,
        max_retries=0,
        environment=DriverEnvironment(
            inherited=base.inherited,
            credentials=credentials,
            home=base.home,
            redactor=redactor,
            mcp_servers=base.mcp_servers,
        ),
    )


def function_names(request: openai.RecordedRequest) -> set[str]:
    tools = (request.body or {}).get("tools", [])
    return {tool.get("name") or tool.get("function", {}).get("name") for tool in tools}


async def test_pydantic_ai_calls_an_mcp_tool_through_the_gateway(
    gateway: tuple[McpGateway, Redactor], checkout: Path, tmp_path: Path
) -> None:
    running, redactor = gateway
    with ScriptedOpenAIServer() as server:
        server.add_turns(
            [openai.tool_call(LOOKUP, {"topic": "greet"}, "c1")],
            [openai.tool_call("mcp__docs__whisper", {}, "c2")],
            [openai.tool_call("mcp__docs__fail", {"reason": "maintenance"}, "c3")],
            [openai.text("greet says hello.")],
        )
        driver = api_driver(server, running, redactor, tmp_path)
        messages = await collect(driver, checkout)
        requests = list(server.requests)

    assert_the_lookup_reached_the_progress(messages)
    assert {n for n in function_names(requests[0]) if n.startswith("mcp__")} == DEVELOPER_TOOLS
    outputs = {
        item["call_id"]: str(item.get("output"))
        for request in requests
        for item in (request.body or {}).get("input", [])
        if item.get("type") == "function_call_output"
    }
    assert ANSWER in outputs["c1"]
    assert f"my key is {MASK}" in outputs["c2"]
    assert SECRET not in json.dumps([request.body for request in requests])
    (failed,) = [m for m in of_type(messages, T.TOOL_RESULT) if m.tool_name == "mcp__docs__fail"]
    assert failed.is_error and "docs are down: maintenance" in (failed.tool_output or "")
    assert driver.last_transcript_path is not None
    transcript = driver.last_transcript_path.read_text(encoding="utf-8")
    assert LOOKUP in transcript and ANSWER in transcript and SECRET not in transcript


async def test_pydantic_ai_reviewer_gets_only_its_tool_and_read_files_none(
    gateway: tuple[McpGateway, Redactor], checkout: Path, tmp_path: Path
) -> None:
    running, redactor = gateway
    for profile, expected in (("read_only", {LOOKUP}), ("read_files", set())):
        with ScriptedOpenAIServer() as server:
            server.add_turns([openai.text("Nothing to look up.")])
            driver = api_driver(
                server,
                running,
                redactor,
                tmp_path / profile,
                "reviewer",
                profile,  # type: ignore[arg-type]
            )
            messages = await collect(driver, checkout)
            (request,) = list(server.requests)
        assert messages[-1].type == T.RESULT and not messages[-1].is_error
        assert {n for n in function_names(request) if n.startswith("mcp__")} == expected, profile
