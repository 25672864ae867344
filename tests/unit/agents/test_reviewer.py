"""Reviewer: sees committed and uncommitted changes, asks for structured output, parses it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.agents.reviewer import Reviewer
from amelia.agents.verdict import ReviewVerdict
from amelia.core.state import ExecutionState
from amelia.errors import AgentRunFailedError
from amelia.testing.scripted_driver import ScriptedDriver, result
from tests.git_helpers import IDENTITY, git

APPROVED = json.dumps(
    {"verdict": "approved", "severity": "none", "summary": "Good", "comments": []}
)


async def _review(driver: ScriptedDriver, repo: Path, base: str = "HEAD") -> ExecutionState:
    state = ExecutionState(plan_markdown="# Plan\n\n**Goal:** farewell")
    pairs = [
        pair
        async for pair in Reviewer(driver).review(
            state, workflow_id="wf", repo_dir=repo, base_ref=base
        )
    ]
    return pairs[-1][0]


async def test_prompt_holds_committed_uncommitted_and_untracked_changes(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "greeter/core.py").write_text("def greet(name: str) -> str:\n    return name\n")
    git(repo, *IDENTITY, "commit", "-qam", "Simplify")
    (repo / "README.md").write_text("# greeter\n\nchanged readme\n")
    (repo / "greeter/farewell.py").write_text("def farewell() -> str:\n    return 'Bye'\n")
    driver = ScriptedDriver([[result(APPROVED)]])

    final = await _review(driver, repo, base)

    (call,) = driver.calls
    assert call.schema is ReviewVerdict
    assert call.cwd == str(repo)
    assert "+    return name" in call.prompt
    assert "+changed readme" in call.prompt
    assert "+def farewell() -> str:" in call.prompt
    assert call.instructions is not None and "Do not modify any files" in call.instructions
    assert final.last_review is not None and final.last_review.approved
    assert final.review_iteration == 1
    assert final.base_ref == base


async def test_no_changes_requests_changes_without_asking_the_model(repo: Path) -> None:
    driver = ScriptedDriver()
    final = await _review(driver, repo)
    assert driver.calls == []
    assert final.last_review is not None
    assert final.last_review.verdict == "changes_requested"
    assert "no changes" in final.last_review.summary


async def test_garbage_answer_means_changes_requested(repo: Path) -> None:
    (repo / "new.py").write_text("x = 1\n")
    final = await _review(ScriptedDriver([[result("It is probably fine")]]), repo)
    assert final.last_review is not None
    assert final.last_review.verdict == "changes_requested"
    assert "no parseable verdict" in final.last_review.summary


async def test_error_result_fails(repo: Path) -> None:
    (repo / "new.py").write_text("x = 1\n")
    with pytest.raises(AgentRunFailedError, match="overloaded"):
        await _review(ScriptedDriver([[result("API overloaded", is_error=True)]]), repo)
