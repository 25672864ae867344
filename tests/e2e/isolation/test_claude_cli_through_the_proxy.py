"""The real Claude Code CLI (from the claude-agent-sdk wheel) reaches its model only through
the credential proxy: its environment holds the proxy token, the scripted Anthropic server
gets the real credential, and a Bash tool searching every process it can see through /proc
finds no trace of the real credential."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.isolation.proxy import CredentialProxy
from amelia.isolation.upstreams import ANTHROPIC_OAUTH_BETA, CredentialKind, Upstream
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_server import Turn, text, tool_use
from amelia.testing.scripted_claude import scripted_claude_environment
from tests.security.probe_results import PROBE, ProbeDump, found_in

pytestmark = pytest.mark.e2e

REAL_CREDENTIALS: dict[CredentialKind, str] = {
    "api_key": "sk-ant-api03-the-real-key-only-amelia-holds-7c1f0e",
    "oauth_token": "sk-ant-oat01-the-real-oauth-token-only-amelia-holds-4b2d9a",
    "auth_token": "gateway-token-only-amelia-holds-93e1c7",
}
CLI_KEY_VARIABLE: dict[CredentialKind, str] = {
    "api_key": "ANTHROPIC_API_KEY",
    "oauth_token": "CLAUDE_CODE_OAUTH_TOKEN",
    "auth_token": "ANTHROPIC_AUTH_TOKEN",
}


def _probe_script(dump: Path) -> list[Turn]:
    return [
        [tool_use("Bash", {"command": f"{sys.executable} {PROBE} {dump}"})],
        [text("searched")],
    ]


async def _run_cli(tmp_path: Path, environment: dict[str, str]) -> list[AgenticMessage]:
    workdir = tmp_path / "checkout"
    workdir.mkdir()
    driver = ClaudeCliDriver(
        tool_profile="full",
        amelia_home=tmp_path / "amelia-home",
        env={**environment, "HOME": str(tmp_path)},
        timeout_seconds=120,
    )
    messages = [message async for message in driver.execute_agentic("search", str(workdir))]
    results = [m for m in messages if m.type == AgenticMessageType.TOOL_RESULT]
    assert [(r.tool_name, r.is_error) for r in results] == [("Bash", False)]
    assert messages[-1].content == "searched"
    return messages


@pytest.mark.parametrize("kind", ["api_key", "oauth_token", "auth_token"])
async def test_the_cli_holds_only_the_proxy_token_and_the_model_gets_the_real_one(
    tmp_path: Path, kind: CredentialKind
) -> None:
    real = REAL_CREDENTIALS[kind]
    assert all(real not in value for value in os.environ.values())
    dump = tmp_path / "dump"
    with ScriptedAnthropicServer(_probe_script(dump)) as server:
        upstream = Upstream(provider="anthropic", credential=real, kind=kind, base_url=server.url)
        async with CredentialProxy([upstream]) as proxy:
            environment = {
                **scripted_claude_environment(server.url, tmp_path / ".claude", api_key=None),
                **proxy.claude_environment(),
            }
            await _run_cli(tmp_path, environment)
            token = proxy.token

    # Every model call went through the proxy and reached the model with the real credential.
    assert len(server.main_requests) == 2
    assert all(request.path.startswith("/v1/messages") for request in server.requests)
    for request in server.requests:
        assert all(token not in value for value in request.headers.values())
        betas = request.headers["anthropic-beta"].split(",")
        if kind == "api_key":
            assert request.headers["x-api-key"] == real
        else:
            assert request.headers["authorization"] == f"Bearer {real}"
            assert (ANTHROPIC_OAUTH_BETA in betas) == (kind == "oauth_token")

    # The probe read the CLI's own environment: it holds the proxy token, not the credential.
    probe = ProbeDump(dump)
    assert any(probe.process(pid)["environ"] == "read" for pid in probe.report["ancestors"])
    assert f"{CLI_KEY_VARIABLE[kind]}={token}\0".encode() in probe.sections("environ")
    assert found_in(probe.data, {"real": real}) == set()


async def test_without_the_proxy_the_same_search_finds_the_key_in_the_clis_environment(
    tmp_path: Path,
) -> None:
    real = REAL_CREDENTIALS["api_key"]
    dump = tmp_path / "dump"
    with ScriptedAnthropicServer(_probe_script(dump)) as server:
        environment = scripted_claude_environment(server.url, tmp_path / ".claude", api_key=real)
        await _run_cli(tmp_path, environment)

    assert found_in(ProbeDump(dump).sections("environ"), {"real": real}) == {"real"}
