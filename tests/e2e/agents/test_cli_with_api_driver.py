"""`amelia plan | implement | review` as subprocesses with the pydantic-ai API driver.

pydantic-ai's real OpenAI provider talks to a ScriptedOpenAIServer on 127.0.0.1 through
OPENAI_BASE_URL (Responses API for `openai:` models); the driver's own tools run in a
temporary git repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from amelia.agents.prompts import ARCHITECT_PLAN_PROMPT, DEVELOPER_INSTRUCTIONS
from amelia.testing.openai_server import (
    RecordedRequest,
    ScriptedOpenAIServer,
    ScriptItem,
    text,
    tool_call,
)
from amelia.testing.sample_repo import create_sample_repo
from tests.git_helpers import IDENTITY, git

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

PROJECT_RULE = "PROJECT-RULE-2231 name things plainly"
DEVELOPER_RULE = "DEVELOPER-RULE-8812 run the tests"
AGENTS_RULE = "AGENTS-RULE-4471 use tox"
CLAUDE_RULE = "CLAUDE-RULE-9354 prefer pathlib"
PLAN = "# Shout Plan\n\n**Goal:** Add shout.\n\n### Task 1: greeter/shout.py"
REVIEW = {
    "verdict": "changes_requested",
    "severity": "minor",
    "summary": "Name it better",
    "comments": [{"path": "greeter/shout.py", "line": 1, "severity": "minor", "body": "Rename"}],
}


class Model:
    """Answers by role (found in the instructions) and by how often that role has asked."""

    def __init__(self) -> None:
        self.turns: dict[str, list[Sequence[ScriptItem]]] = {
            "architect": [
                [tool_call("read_file", {"file_path": "greeter/core.py"})],
                [text(PLAN)],
            ],
            "developer": [
                [
                    tool_call(
                        "write_file",
                        {
                            "file_path": "greeter/shout.py",
                            "content": "def shout(n):\n    return n\n",
                        },
                    )
                ],
                [text("Wrote greeter/shout.py")],
            ],
            "reviewer": [[tool_call("final_result", REVIEW)]],
        }
        self.seen: dict[str, list[RecordedRequest]] = {role: [] for role in self.turns}

    def __call__(self, request: RecordedRequest) -> Sequence[ScriptItem]:
        body = json.dumps(request.body)
        if ARCHITECT_PLAN_PROMPT.splitlines()[0] in body:
            role = "architect"
        elif DEVELOPER_INSTRUCTIONS.splitlines()[0] in body:
            role = "developer"
        else:
            role = "reviewer"
        self.seen[role].append(request)
        script = self.turns[role]
        return script[min(len(self.seen[role]) - 1, len(script) - 1)]


@pytest.fixture
def model() -> Model:
    return Model()


@pytest.fixture
def server(model: Model) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(script=model) as running:
        yield running


def _amelia(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "amelia.cli", *args, "--driver", "api:openai", "--model", "gpt-x"],
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
    )


def test_plan_implement_review_with_the_api_driver(
    tmp_path: Path, server: ScriptedOpenAIServer, model: Model
) -> None:
    repo = create_sample_repo(tmp_path / "repo")
    # The repository's configuration and instruction files, read from the work tree.
    (repo / ".github").mkdir()
    (repo / ".github" / "amelia.yml").write_text(
        f"instructions: {PROJECT_RULE}\nagents:\n  developer:\n    instructions: {DEVELOPER_RULE}\n"
    )
    (repo / "AGENTS.md").write_text(AGENTS_RULE + "\n")
    (repo / "CLAUDE.md").write_text(CLAUDE_RULE + "\n")
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "Configure amelia")
    env = {
        **os.environ,
        "OPENAI_BASE_URL": server.url,
        "OPENAI_API_KEY": "e2e-key",
        "AMELIA_HOME": str(tmp_path / "home"),
    }

    planned = _amelia(
        env, "plan", "--title", "Add shout", "--issue-number", "4", "--repo", str(repo)
    )
    assert planned.returncode == 0, planned.stderr
    (plan_file,) = (repo / "docs" / "plans").glob("*-issue-4-add-shout.md")
    assert plan_file.read_text() == PLAN + "\n"
    assert "def greet" in json.dumps(model.seen["architect"][1].body)  # read_file really ran

    implemented = _amelia(env, "implement", "--plan", str(plan_file), "--repo", str(repo))
    assert implemented.returncode == 0, implemented.stderr
    assert (repo / "greeter" / "shout.py").read_text() == "def shout(n):\n    return n\n"

    reviewed = _amelia(env, "review", "--base", "HEAD", "--repo", str(repo), "--json")
    assert reviewed.returncode == 1, reviewed.stderr
    verdict: dict[str, Any] = json.loads(reviewed.stdout)
    assert verdict["verdict"] == "changes_requested"
    assert verdict["comments"][0]["body"] == "Rename"
    assert "+def shout(n):" in json.dumps(model.seen["reviewer"][0].body)

    # Every agent's requests carry the project's instructions, AGENTS.md and (this driver
    # does not read it itself) CLAUDE.md as trusted instructions; the developer's own
    # instructions reach the developer only.
    for role, requests in model.seen.items():
        sent = json.dumps(requests[0].body)
        for rule in (PROJECT_RULE, AGENTS_RULE, CLAUDE_RULE):
            assert rule in sent, (role, rule)
        assert (DEVELOPER_RULE in sent) == (role == "developer"), role
