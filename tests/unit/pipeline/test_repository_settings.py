"""What the repository's configuration changes in the pipeline: each agent's driver, model
and instructions, the reviewer's diff and path instructions, and the budget."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.core.state import ExecutionState
from amelia.core.types import (
    AgentProfile,
    AgentRole,
    PathInstruction,
    Profile,
    ReviewOptions,
    StreamEvent,
    StreamEventType,
    ToolProfileName,
)
from amelia.drivers.base import DriverInterface, DriverUsage
from amelia.pipeline import BudgetExceededError, RunContext, develop_and_review, run_review
from amelia.testing.scripted_driver import ScriptedDriver, result
from tests.git_helpers import IDENTITY, git

PLAN = "# Plan\n\n**Goal:** Add farewell.\n\n### Task 1: farewell"
APPROVED = json.dumps({"verdict": "approved", "severity": "none", "summary": "ok"})


def _drivers(cost: float = 0.0) -> dict[AgentRole, ScriptedDriver]:
    return {
        "architect": ScriptedDriver([[result(PLAN)]]),
        "developer": ScriptedDriver(
            [[result("done", usage=DriverUsage(cost_usd=cost, model="claude-x"))]]
        ),
        "reviewer": ScriptedDriver([[result(APPROVED, usage=DriverUsage(model="gpt-y"))]]),
    }


def _context(
    repo: Path,
    drivers: dict[AgentRole, ScriptedDriver],
    events: list[StreamEvent],
    profile: Profile,
) -> RunContext:
    async def record(event: StreamEvent) -> None:
        events.append(event)

    def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        return drivers[role]

    return RunContext(repo_dir=repo, make_driver=make, profile=profile, sinks=[record])


async def test_a_tiny_budget_stops_the_loop_before_the_reviewer(repo: Path) -> None:
    drivers = _drivers(cost=0.02)
    events: list[StreamEvent] = []
    hooked: list[str] = []

    async def after(role: AgentRole, state: ExecutionState) -> None:
        hooked.append(role)  # where the Action commits and pushes the developer's work

    context = _context(repo, drivers, events, Profile(max_cost_usd=0.01))
    with pytest.raises(BudgetExceededError) as caught:
        await develop_and_review(
            ExecutionState(plan_markdown=PLAN), context, base_ref="HEAD", after_stage=after
        )

    reason = "stopped: budget of $0.01 reached after developer ($0.0200 spent)"
    assert str(caught.value) == reason and caught.value.stage == "reviewer"
    assert hooked == ["developer"]  # the developer's round was handed on before stopping
    assert drivers["reviewer"].calls == []
    assert caught.value.state.cost_usd == 0.02
    failed = [e for e in events if e.type == StreamEventType.WORKFLOW_FAILED]
    assert [(e.agent, e.content) for e in failed] == [("reviewer", reason)]


async def test_below_the_budget_every_agent_runs(repo: Path) -> None:
    drivers = _drivers(cost=0.02)
    context = _context(repo, drivers, [], Profile(max_cost_usd=1.0))
    (repo / "farewell.py").write_text("x = 1\n")
    final = await develop_and_review(ExecutionState(plan_markdown=PLAN), context, base_ref="HEAD")
    assert final.last_review is not None and final.last_review.approved
    assert [(u.agent, u.model) for u in final.usage] == [
        ("developer", "claude-x"),
        ("reviewer", "gpt-y"),
    ]


async def test_each_agent_gets_its_instructions_and_the_stages_name_its_model(
    repo: Path,
) -> None:
    drivers = _drivers()
    events: list[StreamEvent] = []
    profile = Profile(
        agents={
            "developer": AgentProfile(model="claude-sonnet-4-5", instructions="DEV-RULE"),
            "reviewer": AgentProfile(
                driver="api:openai", model="openai:gpt-4.1", instructions="REVIEW-RULE"
            ),
        }
    )
    (repo / "farewell.py").write_text("x = 1\n")
    await develop_and_review(
        ExecutionState(plan_markdown=PLAN),
        _context(repo, drivers, events, profile),
        base_ref="HEAD",
    )

    (developer,) = drivers["developer"].calls
    (reviewer,) = drivers["reviewer"].calls
    assert developer.instructions is not None and reviewer.instructions is not None
    assert "## Project Instructions" in developer.instructions
    assert "DEV-RULE" in developer.instructions and "REVIEW-RULE" not in developer.instructions
    assert "REVIEW-RULE" in reviewer.instructions and "DEV-RULE" not in reviewer.instructions
    started = {e.agent: e.content for e in events if e.type == StreamEventType.STAGE_STARTED}
    assert started["developer"] == "implementing plan — cli:claude · claude-sonnet-4-5"
    assert (started["reviewer"] or "").endswith(" — api:openai · openai:gpt-4.1")


async def test_ignored_paths_leave_the_diff_and_path_instructions_follow_the_change(
    repo: Path,
) -> None:
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text("IGNORED-DOC\n")
    (repo / "uv.lock").write_text("IGNORED-LOCK\n")
    (repo / "greeter" / "extra.py").write_text("KEPT = 1\n")
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "change")
    (repo / "greeter" / "sub").mkdir()
    (repo / "greeter" / "sub" / "deps.lock").write_text("IGNORED-NESTED-LOCK\n")
    drivers = _drivers()
    review = ReviewOptions(
        ignore_paths=("docs/**", "*.lock"),
        path_instructions=(
            PathInstruction(path="greeter/**", instructions="GREETER-RULE"),
            PathInstruction(path="web/**", instructions="WEB-RULE"),
        ),
    )
    context = _context(repo, drivers, [], Profile(review=review))
    await run_review(ExecutionState(), context, base_ref="HEAD~1")

    (call,) = drivers["reviewer"].calls
    assert "KEPT = 1" in call.prompt
    assert "IGNORED" not in call.prompt
    assert call.instructions is not None
    assert "### For changes to `greeter/**` (1 file(s))\n\nGREETER-RULE" in call.instructions
    assert "WEB-RULE" not in call.instructions


async def test_the_answerer_gets_the_project_instructions_too(repo: Path) -> None:
    from amelia.core.state import PersonRequest
    from amelia.pipeline import run_answer

    answerer = ScriptedDriver([[result("It is in greeter/core.py:4.")]])
    profile = Profile(agents={"answerer": AgentProfile(instructions="ANSWER-RULE")})
    context = RunContext(repo_dir=repo, make_driver=lambda role, tools: answerer, profile=profile)
    state = ExecutionState(request=PersonRequest(login="maintainer", text="Where is greet?"))
    answered = await run_answer(state, context)

    assert answered.answer == "It is in greeter/core.py:4."
    (call,) = answerer.calls
    assert call.instructions is not None and "ANSWER-RULE" in call.instructions
