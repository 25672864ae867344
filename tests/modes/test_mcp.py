"""MCP servers of `.github/amelia.yml`, run in-process: a review of the repository's own
pull request starts the server and gives the reviewer its tools, a maintainer's review of a
fork's pull request starts none, and a server that does not start (or a secret that is not
there) stops the run with one line before any model request. What reaches each driver
through the gateway, and the servers stopping on SIGTERM, run through the real entry point
in `tests/e2e/action/test_mcp_action.py`."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, plan_agents
from amelia.testing.scripted_agents import AgentRequest, final_result, say
from tests.mcp_helpers import SECRET, SERVER

LOOKUP = "mcp__docs__lookup"
VERDICT: dict[str, Any] = {"verdict": "approved", "severity": "none", "summary": "fine"}
RUN_AS_ONE_USER = {"AMELIA_MCP_USER": "none"}
SECRETS = {"mcp_secrets": f"DOCS_API_KEY={SECRET}"}
NOT_STARTED = (
    "::notice::amelia: the MCP servers of the configuration are not started: this run "
    "reads a pull request's head as data only, and no agent of it gets an MCP tool"
)


def docs_config(pid_file: Path, agents: str) -> str:
    return (
        "mcp:\n"
        "  servers:\n"
        "    docs:\n"
        f"      command: {json.dumps(sys.executable)}\n"
        f"      args: [{json.dumps(SERVER)}, --pid-file, {json.dumps(str(pid_file))}]\n"
        "      env: {DOCS_API_KEY: {secret: DOCS_API_KEY}}\n"
        "  agents:\n"
        f"{agents}"
    )


def alive(pid_file: Path) -> bool:
    return Path(f"/proc/{pid_file.read_text(encoding='ascii').strip()}").exists()


def mcp_tools_offered(requests: Sequence[AgentRequest]) -> set[str]:
    return {name for request in requests for name in request.tools if name.startswith("mcp__")}


@pytest.fixture
def pid_file(tmp_path: Path) -> Path:
    return tmp_path / "docs-server.pid"


@pytest.fixture
def configured(action: ActionHarness, pid_file: Path) -> ActionHarness:
    action.agents = plan_agents(roles={"reviewer": [[final_result(**VERDICT)], [say("ok")]]})
    agents = "    reviewer: {docs: all}\n    developer: {docs: all}\n"
    action.commit_files("main", {".github/amelia.yml": docs_config(pid_file, agents)})
    return action


def test_a_maintainers_review_of_a_forks_pull_request_starts_no_mcp_server(
    configured: ActionHarness, pid_file: Path
) -> None:
    # `/amelia review` on a fork's pull request: the comment's payload does not say where
    # the head lives, so amelia reads the pull from GitHub before starting anything.
    number, _ = configured.open_fork_pull({"greeter/farewell.py": "def farewell(): ...\n"})
    event = configured.pull_comment_event(number, "/amelia review")
    result = configured.run_in_process("issue_comment", event, inputs=SECRETS, env=RUN_AS_ONE_USER)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.agent_requests
    assert mcp_tools_offered(result.agent_requests) == set()
    assert not pid_file.exists()
    assert NOT_STARTED in result.stdout.splitlines()
    (review,) = configured.github.reviews(configured.repo, number)
    assert "Fork review:" in review["body"]


def test_a_review_of_a_pull_request_from_the_repository_itself_still_starts_the_server(
    configured: ActionHarness, pid_file: Path
) -> None:
    number, _ = configured.open_pull("feature", {"greeter/farewell.py": "def farewell(): ...\n"})
    event = configured.pull_comment_event(number, "/amelia review")
    result = configured.run_in_process("issue_comment", event, inputs=SECRETS, env=RUN_AS_ONE_USER)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert LOOKUP in mcp_tools_offered(result.agent_requests)
    assert pid_file.exists() and not alive(pid_file)
    assert NOT_STARTED not in result.stdout.splitlines()


@pytest.mark.parametrize(
    ("server", "inputs", "code", "message"),
    [
        (
            "{command: %s, args: [-c, 'import sys; sys.exit(\"login failed\")']}",
            SECRETS,
            1,
            "::error::amelia failed: MCP server docs did not start: Connection closed — stderr: "
            "…login failed",
        ),
        (
            # Reads its input and never answers; it ends when amelia closes that input, so
            # the run does not wait out the MCP client's grace for a server that would not.
            "{command: %s, args: [-c, 'import sys; sys.stdin.read()'], "
            "startup_timeout_seconds: 0.5}",
            SECRETS,
            1,
            "::error::amelia failed: MCP server docs did not answer within 0.5 s",
        ),
        (
            "{command: %s, env: {DOCS_API_KEY: {secret: DOCS_API_KEY}}}",
            {},
            2,
            "::error::mcp.servers.docs.env.DOCS_API_KEY: the secret DOCS_API_KEY is not set: add "
            "the line DOCS_API_KEY=${{ secrets.DOCS_API_KEY }} to the mcp_secrets input",
        ),
    ],
    ids=["exits", "silent", "no-secret"],
)
def test_a_server_that_cannot_start_stops_the_run_before_any_model_request(
    action: ActionHarness, server: str, inputs: dict[str, str], code: int, message: str
) -> None:
    config = (
        "mcp:\n  servers:\n"
        f"    docs: {server % json.dumps(sys.executable)}\n"
        "  agents: {architect: {docs: all}}\n"
    )
    action.commit_files("main", {".github/amelia.yml": config})
    number = action.add_issue("Add a farewell", "Say goodbye too.")
    result = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia plan"),
        inputs=inputs,
        env=RUN_AS_ONE_USER,
    )

    assert result.exit_code == code, result.stdout + result.stderr
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors == [message]
    assert not result.agent_requests
    assert "Traceback" not in result.stderr
    assert action.origin_branches() == ["main"]
