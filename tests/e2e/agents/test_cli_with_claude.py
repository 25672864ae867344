"""`amelia plan | implement | review | demo` as subprocesses with the real Claude Code CLI.

The CLI talks to a ScriptedAnthropicServer on 127.0.0.1 through ANTHROPIC_BASE_URL; its
tools really run in a temporary git repository.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.anthropic_server import ScriptedAnthropicServer
from amelia.testing.scripted_claude import role_of, scripted_claude_environment, step_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

PLAN = """# Shout Implementation Plan

**Goal:** Add `shout(name)` returning the greeting in upper case.

### Task 1: shout

**Files:**
- Modify: `greeter/core.py` (next to `greet`)
"""


class Model:
    """The scripted model: one list of turns per role, and the verdict the reviewer gives."""

    def __init__(self, repo: Path) -> None:
        core = str(repo / "greeter" / "core.py")
        self.verdict: dict[str, Any] = {
            "verdict": "changes_requested",
            "severity": "major",
            "summary": "shout is untested",
            "comments": [
                {"path": "greeter/shout.py", "line": 1, "severity": "major", "body": "Add a test"},
                {"path": "greeter/shout.py", "line": 2, "severity": "none", "body": "✓ lint ok"},
            ],
        }
        self.turns: dict[str, list[Turn]] = {
            "architect": [
                [text("Exploring."), tool_use("Read", {"file_path": core})],
                [tool_use("Bash", {"command": "git log --oneline"})],
                [text(PLAN)],
            ],
            "developer": [
                [
                    tool_use(
                        "Write",
                        {
                            "file_path": str(repo / "greeter" / "shout.py"),
                            "content": "def shout(name: str) -> str:\n    return name.upper()\n",
                        },
                    )
                ],
                [text("Wrote greeter/shout.py")],
            ],
        }

    def __call__(self, request: RecordedRequest) -> Turn:
        role = role_of(request)
        if role == "reviewer":
            return (
                [tool_use("StructuredOutput", self.verdict)]
                if step_of(request) == 0
                else [text("ok")]
            )
        script = self.turns[role]
        return script[min(step_of(request), len(script) - 1)]


@pytest.fixture
def model(repo: Path) -> Model:
    return Model(repo)


@pytest.fixture
def server(model: Model) -> Iterator[ScriptedAnthropicServer]:
    with ScriptedAnthropicServer(script=model) as running:
        yield running


@pytest.fixture
def env(server: ScriptedAnthropicServer, tmp_path: Path) -> dict[str, str]:
    return {
        **os.environ,
        **scripted_claude_environment(server.url, tmp_path / "claude-config"),
        "AMELIA_HOME": str(tmp_path / "amelia-home"),
        "AMELIA_DRIVER": "cli:claude",
    }


def _amelia(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "amelia.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
    )


def test_plan_implement_review_with_claude_code(
    repo: Path, env: dict[str, str], server: ScriptedAnthropicServer, model: Model
) -> None:
    planned = _amelia(
        env, "plan", "--title", "Add shout", "--issue-number", "3", "--repo", str(repo)
    )
    assert planned.returncode == 0, planned.stderr
    (plan_file,) = (repo / "docs" / "plans").glob("*-issue-3-add-shout.md")
    assert plan_file.read_text() == PLAN
    assert "goal: Add `shout(name)` returning the greeting in upper case." in planned.stdout
    architect_requests = [r for r in server.main_requests if role_of(r) == "architect"]
    assert len(architect_requests) == 3
    tool_results = json.dumps(architect_requests[1].body)
    assert "def greet" in tool_results  # the real Read ran in the repository

    implemented = _amelia(env, "implement", "--plan", str(plan_file), "--repo", str(repo))
    assert implemented.returncode == 0, implemented.stderr
    assert (repo / "greeter" / "shout.py").read_text().startswith("def shout")
    assert "?? greeter/shout.py" in implemented.stdout

    reviewed = _amelia(env, "review", "--base", "HEAD", "--repo", str(repo), "--json")
    assert reviewed.returncode == 1, reviewed.stderr
    verdict = json.loads(reviewed.stdout)
    assert verdict["verdict"] == "changes_requested"
    assert [c["body"] for c in verdict["comments"]] == ["Add a test"]
    review_request = next(r for r in server.main_requests if role_of(r) == "reviewer")
    assert "+def shout(name: str) -> str:" in json.dumps(review_request.body)
    assert "StructuredOutput" in [t["name"] for t in (review_request.body or {})["tools"]]

    model.verdict = {"verdict": "approved", "summary": "fine", "comments": []}
    approved = _amelia(env, "review", "--base", "HEAD", "--repo", str(repo))
    assert approved.returncode == 0, approved.stderr
    assert "verdict: approved (severity none)" in approved.stdout


def test_plan_reports_a_model_error_without_traceback(
    repo: Path, env: dict[str, str], model: Model
) -> None:
    model.turns["architect"] = [[text("I am not going to plan.")]]
    planned = _amelia(env, "plan", "--title", "T", "--repo", str(repo))
    assert planned.returncode == 1
    assert "architect failed: no plan in the answer after a retry" in planned.stderr
    assert "Traceback" not in planned.stderr
    assert not (repo / "docs").exists()


def test_demo_runs_the_whole_pipeline(tmp_path: Path) -> None:
    env = {**os.environ, "AMELIA_HOME": str(tmp_path / "home")}
    out = tmp_path / "demo"
    completed = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "demo", "--output", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert completed.returncode == 0, completed.stderr
    assert "(approved)" in completed.stdout
    verdict = json.loads((out / "verdict.json").read_text())
    assert verdict["verdict"] == "approved"
    assert [c["path"] for c in verdict["comments"]] == ["greeter/core.py"]
    diff = (out / "change.diff").read_text()
    assert "+def farewell(name: str) -> str:" in diff
    assert "tests/test_farewell.py" in diff
    (plan,) = (out / "greeter" / "docs" / "plans").glob("*-issue-1-add-a-farewell-function.md")
    assert "**Goal:**" in plan.read_text()
    core = (out / "greeter" / "greeter" / "core.py").read_text()
    assert 'return f"Goodbye, {name}!"' in core
