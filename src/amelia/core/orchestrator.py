"""The pipeline: plan → develop → review, looping develop → review until approved.

Everything with side effects outside the worktree is injected: drivers come from
`make_driver(role, tool_profile)`, events go to `sinks`, and `after_stage` lets the caller
(the GitHub Action, the CLI) commit or report between stages. This module never talks to
GitHub. State is immutable; each stage returns a new `ExecutionState`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from loguru import logger

from amelia.agents.architect import Architect
from amelia.agents.developer import Developer
from amelia.agents.reviewer import Reviewer
from amelia.core.changes import git
from amelia.core.planfile import extract_goal
from amelia.core.sinks import Sink, dispatch
from amelia.core.state import ExecutionState
from amelia.core.types import Profile, StreamEvent, StreamEventType, ToolProfileName
from amelia.drivers.base import DriverInterface
from amelia.errors import AgentError, GitError, RunError

AgentRole = Literal["architect", "developer", "reviewer"]
MakeDriver = Callable[[AgentRole, ToolProfileName], DriverInterface]
StageHook = Callable[[AgentRole, ExecutionState], Awaitable[ExecutionState | None]]

ROLE_TOOL_PROFILES: dict[AgentRole, ToolProfileName] = {
    "architect": "read_only",
    "developer": "full",
    "reviewer": "read_only",
}

# Failures a stage turns into `StageFailedError`; anything else is a bug and propagates.
_STAGE_FAILURES = (RunError, TimeoutError, OSError)


class StageFailedError(RunError):
    """A stage could not finish. `state` is the last state seen, with its tool results."""

    def __init__(self, stage: AgentRole, reason: str, state: ExecutionState) -> None:
        super().__init__(f"{stage} failed: {reason}")
        self.stage = stage
        self.reason = reason
        self.state = state


def default_make_driver(profile: Profile) -> MakeDriver:
    """Drivers from the registry, configured from `profile` (driver key, model, max turns)."""
    from amelia.drivers.factory import DriverFactory

    def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        # Unset options are left out so each driver keeps its own defaults.
        options = {"model": profile.model, "max_turns": profile.max_turns}
        chosen = {name: value for name, value in options.items() if value is not None}
        return DriverFactory.get_driver(profile.driver, tool_profile=tool_profile, **chosen)

    return make


@dataclass(frozen=True)
class RunContext:
    """Where and how a run happens. `repo_dir` is the worktree the agents work in."""

    repo_dir: Path
    make_driver: MakeDriver
    profile: Profile = field(default_factory=Profile)
    sinks: Sequence[Sink] = ()
    workflow_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def driver_for(self, role: AgentRole) -> DriverInterface:
        return self.make_driver(role, ROLE_TOOL_PROFILES[role])

    async def emit(self, event: StreamEvent) -> None:
        await dispatch(self.sinks, event)

    def event(
        self, kind: StreamEventType, agent: str, content: str, *, error: bool = False
    ) -> StreamEvent:
        return StreamEvent(
            type=kind, content=content, agent=agent, workflow_id=self.workflow_id, is_error=error
        )


async def _run_stage(
    role: AgentRole,
    state: ExecutionState,
    context: RunContext,
    start: Callable[
        [DriverInterface, ExecutionState], AsyncGenerator[tuple[ExecutionState, StreamEvent], None]
    ],
    describe_start: str,
) -> ExecutionState:
    """Run one agent: stream its events to the sinks, bound it in time, wrap its failures."""
    await context.emit(context.event(StreamEventType.STAGE_STARTED, role, describe_start))
    latest = state
    try:
        driver = context.driver_for(role)
        async with asyncio.timeout(context.profile.timeout_seconds):
            async with aclosing(start(driver, state)) as updates:
                async for update, event in updates:
                    latest = update
                    await context.emit(event)
    except _STAGE_FAILURES as error:
        reason = _reason(error, context.profile.timeout_seconds)
        logger.error("Stage {} failed: {}", role, reason)
        await context.emit(context.event(StreamEventType.WORKFLOW_FAILED, role, reason, error=True))
        raise StageFailedError(role, reason, latest) from error
    return latest


def _reason(error: BaseException, timeout_seconds: float) -> str:
    if isinstance(error, TimeoutError):
        return f"timed out after {timeout_seconds:g} s"
    if isinstance(error, AgentError):
        return error.reason
    return str(error) or type(error).__name__


async def run_plan(state: ExecutionState, context: RunContext) -> ExecutionState:
    """Plan `state.issue`; the result holds plan_markdown, plan_path (relative) and goal."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Architect(driver).plan(
            current, context.profile, workflow_id=context.workflow_id, repo_dir=context.repo_dir
        )

    title = state.issue.title if state.issue else "(no issue)"
    planned = await _run_stage("architect", state, context, start, f"planning: {title}")
    await context.emit(
        context.event(
            StreamEventType.STAGE_COMPLETED, "architect", f"plan saved to {planned.plan_path}"
        )
    )
    return planned


async def run_implement(state: ExecutionState, context: RunContext) -> ExecutionState:
    """Implement `state.plan_markdown` (addressing `state.last_review` if it asks for changes)."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Developer(driver).run(
            current, workflow_id=context.workflow_id, repo_dir=context.repo_dir
        )

    if not state.goal and state.plan_markdown:
        state = state.evolve(goal=extract_goal(state.plan_markdown))
    round_text = (
        f"addressing review {state.review_iteration}" if state.last_review else "implementing plan"
    )
    implemented = await _run_stage("developer", state, context, start, round_text)
    errors = len(implemented.error_results) - len(state.error_results)
    await context.emit(
        context.event(
            StreamEventType.STAGE_COMPLETED,
            "developer",
            f"done ({errors} tool error(s))" if errors else "done",
        )
    )
    return implemented


async def run_review(
    state: ExecutionState, context: RunContext, *, base_ref: str
) -> ExecutionState:
    """Review the worktree's changes since `base_ref`; the result holds `last_review`."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Reviewer(driver).review(
            current, workflow_id=context.workflow_id, repo_dir=context.repo_dir, base_ref=base_ref
        )

    reviewed = await _run_stage(
        "reviewer", state, context, start, f"reviewing changes since {base_ref}"
    )
    review = reviewed.last_review
    summary = f"{review.verdict} ({review.severity}): {review.summary}" if review else "no verdict"
    await context.emit(context.event(StreamEventType.STAGE_COMPLETED, "reviewer", summary))
    return reviewed


async def current_head(repo_dir: Path) -> str:
    """The commit the worktree is on; the default base of a review."""
    return (await git(repo_dir, "rev-parse", "HEAD")).strip()


async def run_pipeline(
    state: ExecutionState,
    context: RunContext,
    *,
    base_ref: str | None = None,
    after_stage: StageHook | None = None,
) -> ExecutionState:
    """Plan, then develop and review until approved or `profile.max_review_iterations` rounds.

    `base_ref` defaults to the worktree's HEAD before planning. `after_stage(role, state)`
    runs after every stage (e.g. to commit the plan or the developer's work) and may return
    an updated state. Approval is `result.last_review.approved`; `StageFailedError` ends
    the run early. Drivers are created once per role and reused across rounds.
    """
    drivers: dict[AgentRole, DriverInterface] = {}

    def reuse(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        if role not in drivers:
            drivers[role] = context.make_driver(role, tool_profile)
        return drivers[role]

    run = RunContext(
        repo_dir=context.repo_dir,
        make_driver=reuse,
        profile=context.profile,
        sinks=context.sinks,
        workflow_id=context.workflow_id,
    )
    try:
        base = base_ref or await current_head(run.repo_dir)
    except GitError as error:
        await run.emit(
            run.event(StreamEventType.WORKFLOW_FAILED, "pipeline", str(error), error=True)
        )
        raise StageFailedError("architect", str(error), state) from error
    state = state.evolve(base_ref=base)

    async def after(role: AgentRole, current: ExecutionState) -> ExecutionState:
        if after_stage is None:
            return current
        return (await after_stage(role, current)) or current

    state = await after("architect", await run_plan(state, run))
    for _ in range(run.profile.max_review_iterations):
        state = await after("developer", await run_implement(state, run))
        state = await after("reviewer", await run_review(state, run, base_ref=base))
        if state.last_review is not None and state.last_review.approved:
            break
    review = state.last_review
    outcome = (
        f"approved after {state.review_iteration} review(s)"
        if review is not None and review.approved
        else f"not approved after {state.review_iteration} review(s)"
    )
    await run.emit(run.event(StreamEventType.WORKFLOW_COMPLETED, "pipeline", outcome))
    return state
