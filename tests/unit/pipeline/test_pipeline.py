"""The pipeline with scripted drivers: stages, events, usage, the review loop and failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from amelia.core.state import ExecutionState
from amelia.core.types import Issue, Profile, StreamEvent, StreamEventType, ToolProfileName
from amelia.drivers.base import AgenticMessage, DriverInterface, DriverUsage, GenerateResult
from amelia.drivers.runtime import DriverEnvironment
from amelia.git import Git
from amelia.pipeline import (
    AgentRole,
    RunContext,
    StageFailedError,
    develop_and_review,
    run_implement,
    run_pipeline,
    run_plan,
    run_review,
)
from amelia.testing.scripted_driver import (
    RecordedCall,
    ScriptedDriver,
    ScriptStep,
    result,
    tool_call,
    tool_result,
)
from tests.git_helpers import IDENTITY, git

PLAN = "# Farewell Plan\n\n**Goal:** Add farewell.\n\n### Task 1: farewell in greeter/core.py"
ISSUE = Issue(id="5", number=5, title="Add farewell", description="Say bye")


def _verdict(verdict: str) -> str:
    return json.dumps({"verdict": verdict, "severity": "minor", "summary": verdict, "comments": []})


def _develop(call: RecordedCall) -> list[ScriptStep]:
    assert call.cwd is not None
    target = Path(call.cwd) / "greeter" / "farewell.py"
    rounds = len(target.read_text().splitlines()) if target.exists() else 0
    target.write_text(target.read_text() + f"# round {rounds}\n" if target.exists() else "# r0\n")
    return [
        tool_call("Edit", {"file_path": str(target)}, f"e{rounds}"),
        tool_result("Edit", "ok", f"e{rounds}"),
        tool_call("Bash", {"command": "pytest"}, f"b{rounds}"),
        tool_result("Bash", "FAILED", f"b{rounds}", is_error=True),
        result("done", session_id="dev", usage=DriverUsage(num_turns=2, cost_usd=0.5)),
    ]


class Drivers:
    """make_driver for tests: one scripted driver per role, and a log of what was made."""

    def __init__(self, *, reviews: list[str], develop_rounds: int | None = None) -> None:
        rounds = develop_rounds if develop_rounds is not None else len(reviews)
        self.by_role: dict[AgentRole, ScriptedDriver] = {
            "architect": ScriptedDriver([[tool_call("Read", {}, "r"), result(PLAN)]]),
            "developer": ScriptedDriver([_develop] * rounds),
            "reviewer": ScriptedDriver([[result(_verdict(v))] for v in reviews]),
        }
        self.made: list[tuple[AgentRole, ToolProfileName]] = []

    def __call__(self, role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        self.made.append((role, tool_profile))
        return self.by_role[role]


def _context(repo: Path, drivers: Drivers, events: list[StreamEvent], **profile: int) -> RunContext:
    async def record(event: StreamEvent) -> None:
        events.append(event)

    return RunContext(
        repo_dir=repo,
        make_driver=drivers,
        profile=Profile.model_validate(profile),
        sinks=[record],
        workflow_id="wf-7",
    )


async def test_pipeline_plans_develops_and_gets_approved(repo: Path) -> None:
    drivers = Drivers(reviews=["changes_requested", "approved"])
    events: list[StreamEvent] = []

    final = await run_pipeline(ExecutionState(issue=ISSUE), _context(repo, drivers, events))

    assert final.last_review is not None and final.last_review.approved
    assert final.review_iteration == 2
    assert final.plan_path is not None and (repo / final.plan_path).read_text().startswith("# Far")
    assert (repo / "greeter" / "farewell.py").exists()
    assert sorted(set(drivers.made)) == [
        ("architect", "read_only"),
        ("developer", "full"),
        ("reviewer", "read_only"),
    ]
    assert len(drivers.made) == 3  # one driver per role, reused across rounds
    assert [c.session_id for c in drivers.by_role["developer"].calls] == [None, "dev"]
    assert "<review>" in drivers.by_role["developer"].calls[1].prompt
    usage = {u.agent: u for u in final.usage}
    assert list(usage) == ["architect", "developer", "reviewer"]
    assert (usage["developer"].turns, usage["developer"].tool_calls) == (4, 4)
    assert usage["developer"].tool_errors == 2 and usage["developer"].cost_usd == 1.0
    assert len(final.error_results) == 2
    assert {e.workflow_id for e in events} == {"wf-7"}
    kinds = [e.type for e in events]
    assert kinds.count(StreamEventType.STAGE_STARTED) == 5
    assert kinds[-1] == StreamEventType.WORKFLOW_COMPLETED
    assert "approved after 2 review(s)" in (events[-1].content or "")


async def test_the_loop_develops_and_reviews_with_a_hook_after_every_round(repo: Path) -> None:
    drivers = Drivers(reviews=["changes_requested", "approved"])
    events: list[StreamEvent] = []
    base = git(repo, "rev-parse", "HEAD").strip()
    seen: list[tuple[AgentRole, int]] = []

    async def commit_each_round(role: AgentRole, state: ExecutionState) -> ExecutionState | None:
        seen.append((role, state.review_iteration))
        if role != "developer":
            return None
        git(repo, "add", "--all")
        git(repo, *IDENTITY, "commit", "-qm", "round")
        return state.evolve(developer_output=f"committed round {len(seen)}")

    start = ExecutionState(issue=ISSUE, plan_markdown=PLAN, base_ref=base)
    final = await develop_and_review(
        start, _context(repo, drivers, events), base_ref=base, after_stage=commit_each_round
    )

    assert seen == [("developer", 0), ("reviewer", 1), ("developer", 1), ("reviewer", 2)]
    assert final.last_review is not None and final.last_review.approved
    assert final.developer_output == "committed round 3"  # the hook's state is carried on
    assert drivers.made == [("developer", "full"), ("reviewer", "read_only")]
    assert drivers.by_role["architect"].calls == []
    log = git(repo, "log", "--format=%s", f"{base}..HEAD").split()
    assert log == ["round", "round"]
    assert "greeter/farewell.py" in drivers.by_role["reviewer"].calls[1].prompt
    assert StreamEventType.WORKFLOW_COMPLETED not in [e.type for e in events]


@pytest.mark.parametrize("limit", [1, 3])
async def test_review_loop_stops_at_the_limit(repo: Path, limit: int) -> None:
    drivers = Drivers(reviews=["changes_requested"] * (limit + 2))
    events: list[StreamEvent] = []
    context = _context(repo, drivers, events, max_review_iterations=limit)

    final = await run_pipeline(ExecutionState(issue=ISSUE), context)

    assert len(drivers.by_role["developer"].calls) == limit
    assert len(drivers.by_role["reviewer"].calls) == limit
    assert final.last_review is not None and not final.last_review.approved
    assert final.review_iteration == limit
    assert f"not approved after {limit} review(s)" in (events[-1].content or "")


async def test_a_failing_sink_does_not_stop_the_run(repo: Path) -> None:
    drivers = Drivers(reviews=["approved"])
    seen: list[StreamEvent] = []

    async def broken(event: StreamEvent) -> None:
        raise ConnectionError("progress comment failed")

    async def record(event: StreamEvent) -> None:
        seen.append(event)

    context = RunContext(repo_dir=repo, make_driver=drivers, sinks=[broken, record])
    final = await run_pipeline(ExecutionState(issue=ISSUE), context)
    assert final.last_review is not None and final.last_review.approved
    assert seen[-1].type == StreamEventType.WORKFLOW_COMPLETED


async def test_after_stage_hook_can_commit_between_stages(repo: Path) -> None:
    drivers = Drivers(reviews=["approved"])
    stages: list[str] = []

    async def commit(role: AgentRole, state: ExecutionState) -> ExecutionState:
        stages.append(role)
        if role != "reviewer":
            git(repo, "add", "--all")
            git(repo, *IDENTITY, "commit", "-qm", role)
        return state.evolve(design_context=f"after {role}")

    final = await run_pipeline(
        ExecutionState(issue=ISSUE), _context(repo, drivers, []), after_stage=commit
    )
    assert stages == ["architect", "developer", "reviewer"]
    assert final.design_context == "after reviewer"
    review_prompt = drivers.by_role["reviewer"].calls[0].prompt
    assert "Committed changes" in review_prompt and "Uncommitted" not in review_prompt
    assert "+# r0" in review_prompt


async def test_stage_failure_keeps_the_state_and_reports_it(repo: Path) -> None:
    drivers = Drivers(reviews=[])
    drivers.by_role["developer"] = ScriptedDriver(
        [
            [
                tool_call("Bash", {"command": "rm -rf /"}, "x"),
                tool_result("Bash", "denied", "x", is_error=True),
                result("error_max_turns", is_error=True),
            ]
        ]
    )
    events: list[StreamEvent] = []
    with pytest.raises(StageFailedError) as failure:
        await run_pipeline(ExecutionState(issue=ISSUE), _context(repo, drivers, events))
    assert failure.value.stage == "developer"
    assert failure.value.reason == "error_max_turns"
    assert [r.output for r in failure.value.state.error_results] == ["denied"]
    assert failure.value.state.plan_markdown == PLAN
    assert events[-1].type == StreamEventType.WORKFLOW_FAILED and events[-1].is_error
    assert drivers.by_role["reviewer"].calls == []


async def test_single_stages_can_run_on_their_own(repo: Path) -> None:
    drivers = Drivers(reviews=["approved"])
    context = _context(repo, drivers, [])
    planned = await run_plan(ExecutionState(issue=ISSUE), context)
    implemented = await run_implement(planned, context)
    reviewed = await run_review(implemented, context, base_ref="HEAD")
    assert reviewed.last_review is not None and reviewed.last_review.approved
    assert reviewed.goal == "Add farewell."


async def test_amelias_own_git_reads_the_worktree_through_the_contexts_git_value(
    repo: Path,
) -> None:
    (repo / "greeter" / "core.py").write_text("changed = True\n")
    drivers = Drivers(reviews=["approved", "approved"])
    plain = _context(repo, drivers, [])
    # A value with its own configuration: git shows paths without the a/ and b/ prefixes.
    configured = RunContext(
        repo_dir=repo, make_driver=drivers, git=Git(repo).with_config({"diff.noprefix": "true"})
    )

    await run_review(ExecutionState(), plain, base_ref="HEAD")
    await run_review(ExecutionState(), configured, base_ref="HEAD")

    first, second = (call.prompt for call in drivers.by_role["reviewer"].calls)
    assert "--- a/greeter/core.py" in first
    assert "--- greeter/core.py" in second and "a/greeter/core.py" not in second
    assert plain.repo_git == Git(repo) and configured.repo_git == configured.git
    with pytest.raises(ValueError, match="git runs in"):
        RunContext(repo_dir=repo, make_driver=drivers, git=Git(repo.parent))


class HangingDriver:
    """A driver whose run never produces anything."""

    async def generate(
        self, prompt: str, system_prompt: str | None = None, schema: type[BaseModel] | None = None
    ) -> GenerateResult:
        raise AssertionError("not used")

    async def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        await asyncio.Event().wait()
        yield result("never")


async def test_a_stage_that_hangs_is_stopped_by_the_profile_timeout(repo: Path) -> None:
    def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        return HangingDriver()

    context = RunContext(repo_dir=repo, make_driver=make, profile=Profile(timeout_seconds=0.2))
    with pytest.raises(StageFailedError, match=r"timed out after 0\.2 s"):
        await run_plan(ExecutionState(issue=ISSUE), context)


async def test_unknown_base_ref_fails_the_review_stage(repo: Path) -> None:
    (repo / "x.py").write_text("x = 1\n")
    context = _context(repo, Drivers(reviews=["approved"]), [])
    with pytest.raises(StageFailedError, match="no-such-branch"):
        await run_review(ExecutionState(), context, base_ref="no-such-branch")


def test_default_make_driver_configures_drivers_from_the_profile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from amelia.drivers.factory import DriverFactory
    from amelia.pipeline import default_make_driver

    received: list[dict[str, object]] = []

    def factory(**options: object) -> DriverInterface:
        # A built-in key's factory always gets an environment: this process's by default.
        assert isinstance(options.pop("environment"), DriverEnvironment)
        received.append(options)
        return ScriptedDriver()

    monkeypatch.setitem(DriverFactory._registry, "api", factory)
    default_make_driver(Profile(driver="api", model="openai:gpt-x", max_turns=5))(
        "developer", "full"
    )
    default_make_driver(Profile(driver="api"))("reviewer", "read_only")
    assert received == [
        {"tool_profile": "full", "model": "openai:gpt-x", "max_turns": 5},
        {"tool_profile": "read_only"},
    ]
