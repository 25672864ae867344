"""run_pipeline with the real Claude Code CLI: two review rounds and a resumed developer session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amelia.core.state import ExecutionState
from amelia.core.types import Issue, Profile, StreamEvent, ToolProfileName
from amelia.drivers.base import DriverInterface
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.pipeline import AgentRole, RunContext, run_pipeline
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.anthropic_server import ScriptedAnthropicServer
from amelia.testing.sample_repo import create_sample_repo
from amelia.testing.scripted_claude import role_of, scripted_claude_environment, step_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

PLAN = "# Shout Plan\n\n**Goal:** Add shout.\n\n### Task 1: greeter/shout.py with a test"
FIRST_REVIEW = {
    "verdict": "changes_requested",
    "severity": "major",
    "summary": "shout has no test",
    "comments": [
        {"path": "greeter/shout.py", "line": 1, "severity": "major", "body": "Add a test"}
    ],
}
SECOND_REVIEW = {"verdict": "approved", "severity": "none", "summary": "Tested now", "comments": []}


def _write(path: Path, content: str) -> list[Any]:
    return [tool_use("Write", {"file_path": str(path), "content": content})]


async def test_two_rounds_with_a_resumed_developer_session(tmp_path: Path) -> None:
    repo = create_sample_repo(tmp_path / "repo")
    reviews: list[dict[str, Any]] = [FIRST_REVIEW, SECOND_REVIEW]
    developer_turns: list[Turn] = [
        _write(
            repo / "greeter" / "shout.py", "def shout(name: str) -> str:\n    return name.upper()\n"
        ),
        [text("Wrote shout.py")],
        _write(repo / "tests" / "test_shout.py", "from greeter.shout import shout\n"),
        [text("Added the test")],
    ]

    def model(request: RecordedRequest) -> Turn:
        role, step = role_of(request), step_of(request)
        if role == "architect":
            return [text(PLAN)]
        if role == "developer":
            return developer_turns[min(step, len(developer_turns) - 1)]
        return [tool_use("StructuredOutput", reviews.pop(0))] if step == 0 else [text("ok")]

    events: list[StreamEvent] = []

    async def record(event: StreamEvent) -> None:
        events.append(event)

    with ScriptedAnthropicServer(script=model) as server:
        env = scripted_claude_environment(server.url, tmp_path / "claude-config")

        def make_driver(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
            return ClaudeCliDriver(
                tool_profile=tool_profile, max_turns=8, amelia_home=tmp_path / "home", env=env
            )

        context = RunContext(
            repo_dir=repo, make_driver=make_driver, profile=Profile(), sinks=[record]
        )
        final = await run_pipeline(ExecutionState(issue=Issue(id="9", title="Shout")), context)
        developer_requests = [r for r in server.main_requests if role_of(r) == "developer"]

    assert final.last_review is not None and final.last_review.approved
    assert final.review_iteration == 2
    assert (repo / "tests" / "test_shout.py").exists()
    # The second round resumed the first round's conversation and carried the review.
    second_round = (developer_requests[2].body or {})["messages"]
    assert "Implement the plan in this repository." in json.dumps(second_round[0])
    assert "[major] greeter/shout.py:1: Add a test" in json.dumps(second_round[-3:])
    assert final.developer_session_id is not None
    usage = {u.agent: u for u in final.usage}
    assert usage["developer"].tool_calls == 2 and usage["developer"].turns >= 4
    assert usage["reviewer"].input_tokens > 0
    assert events[-1].content == "approved after 2 review(s)"
