"""The pipeline's stages: plan, implement, review, each one agent run.

Everything with side effects outside the worktree is injected through `RunContext`:
drivers come from `make_driver(role, tool_profile)` and events go to `sinks`. This module
never talks to GitHub. State is immutable; each stage returns a new `ExecutionState`.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

from loguru import logger

from amelia.agents.answerer import Answerer
from amelia.agents.architect import Architect
from amelia.agents.developer import Developer
from amelia.agents.planfile import extract_goal
from amelia.agents.reviewer import Reviewer
from amelia.core.state import ExecutionState, ReviewScope
from amelia.core.types import AgentRole, StreamEvent, StreamEventType
from amelia.drivers.base import DriverInterface
from amelia.drivers.spending import spending_limit
from amelia.errors import AgentError, BudgetReachedError, RunError
from amelia.git import Repo, head_sha
from amelia.pipeline.context import RunContext

__all__ = [
    "BudgetExceededError",
    "StageFailedError",
    "budget_reason",
    "current_head",
    "run_answer",
    "run_implement",
    "run_plan",
    "run_review",
    "runs_on",
]

# Failures a stage turns into `StageFailedError`; anything else is a bug and propagates.
_STAGE_FAILURES = (RunError, TimeoutError, OSError)


class StageFailedError(RunError):
    """A stage could not finish. `state` is the last state seen, with its tool results."""

    def __init__(self, stage: AgentRole, reason: str, state: ExecutionState) -> None:
        super().__init__(f"{stage} failed: {reason}")
        self.stage = stage
        self.reason = reason
        self.state = state


class BudgetExceededError(StageFailedError):
    """The agents' summed cost reached `Profile.max_cost_usd`: before `stage` could start,
    or during it (its driver stopped between two model requests; `state` holds what the
    agent did until then)."""

    def __init__(
        self, stage: AgentRole, reason: str, state: ExecutionState, *, during: bool = False
    ) -> None:
        super().__init__(stage, reason, state)
        self.message = reason
        self.args = (reason,)
        self.during = during
        """True when `stage` ran and was stopped, False when it never started."""


def budget_reason(budget: float, state: ExecutionState) -> str | None:
    """Why no further agent may start, or None while the summed cost is below `budget`."""
    spent = state.cost_usd
    if not state.usage or spent < budget:
        return None
    after = state.last_agent or state.usage[-1].agent
    return _stopped(budget, f"after {after}", spent)


def _stopped(budget: float | None, when: str, spent: float) -> str:
    limit = "the spending limit" if budget is None else f"budget of ${budget:g}"
    return f"stopped: {limit} reached {when} (${spent:.4f} spent)"


def _remaining(budget: float | None, state: ExecutionState) -> float | None:
    """What the next agent may spend: the budget less what the agents cost so far."""
    return None if budget is None else budget - state.cost_usd


def runs_on(context: RunContext, role: AgentRole) -> str:
    """`role`'s driver and model, as the progress comment and the log name them."""
    agent = context.profile.agent(role)
    return f"{agent.driver} · {agent.model}" if agent.model else f"{agent.driver}"


StageStart = Callable[
    [DriverInterface, ExecutionState], AsyncGenerator[tuple[ExecutionState, StreamEvent], None]
]


async def _run_stage(
    role: AgentRole,
    state: ExecutionState,
    context: RunContext,
    start: StageStart,
    describe_start: str,
) -> ExecutionState:
    """Run one agent: stream its events to the sinks, bound it in time, wrap its failures.
    It does not start once the agents so far cost the profile's `max_cost_usd`, and its
    driver stops it once it costs the rest (`BudgetExceededError` either way)."""
    budget = context.profile.max_cost_usd
    stop = budget_reason(budget, state) if budget is not None else None
    if stop is not None:
        logger.warning("Stage {} not started: {}", role, stop)
        await context.emit(context.event(StreamEventType.WORKFLOW_FAILED, role, stop, error=True))
        raise BudgetExceededError(role, stop, state)
    start_text = f"{describe_start} — {runs_on(context, role)}"
    await context.emit(context.event(StreamEventType.STAGE_STARTED, role, start_text))
    latest = state
    try:
        driver = context.driver_for(role)
        async with (
            context.session(role),
            asyncio.timeout(context.profile.timeout_seconds),
            aclosing(start(driver, state)) as updates,
        ):
            with spending_limit(_remaining(budget, state)):
                async for update, event in updates:
                    latest = update
                    await context.emit(event)
    except BudgetReachedError as error:
        reason = _stopped(budget, f"during {role}", latest.cost_usd)
        logger.warning("Stage {} stopped: {}", role, reason)
        await context.emit(context.event(StreamEventType.WORKFLOW_FAILED, role, reason, error=True))
        raise BudgetExceededError(role, reason, latest, during=True) from error
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
        return Architect(
            driver, project_instructions=context.profile.agent("architect").instructions
        ).plan(current, context.profile, workflow_id=context.workflow_id, repo_dir=context.repo_dir)

    title = state.issue.title if state.issue else "(no issue)"
    planned = await _run_stage("architect", state, context, start, f"planning: {title}")
    await context.emit(
        context.event(
            StreamEventType.STAGE_COMPLETED,
            "architect",
            f"plan saved to {planned.plan_path} — {runs_on(context, 'architect')}",
        )
    )
    return planned


async def run_implement(state: ExecutionState, context: RunContext) -> ExecutionState:
    """Implement `state.plan_markdown` (addressing `state.last_review` if it asks for changes)."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Developer(
            driver, project_instructions=context.profile.agent("developer").instructions
        ).run(current, workflow_id=context.workflow_id, repo_dir=context.repo_dir)

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
            (f"done ({errors} tool error(s))" if errors else "done")
            + f" — {runs_on(context, 'developer')}",
        )
    )
    return implemented


async def run_review(
    state: ExecutionState,
    context: RunContext,
    *,
    base_ref: str,
    scope: ReviewScope | None = None,
) -> ExecutionState:
    """Review the worktree's changes since `base_ref`; the result holds `last_review`.

    `scope` makes it an incremental review (see `amelia.agents.reviewer`)."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Reviewer(
            driver,
            project_instructions=context.profile.agent("reviewer").instructions,
            options=context.profile.review,
        ).review(
            current,
            workflow_id=context.workflow_id,
            repo_dir=context.repo_dir,
            git=context.repo_git,
            base_ref=base_ref,
            scope=scope,
            skip=context.preexisting() if context.preexisting is not None else (),
        )

    reviewed = await _run_stage(
        "reviewer", state, context, start, f"reviewing changes since {base_ref}"
    )
    review = reviewed.last_review
    summary = f"{review.verdict} ({review.severity}): {review.summary}" if review else "no verdict"
    summary += f" — {runs_on(context, 'reviewer')}"
    await context.emit(context.event(StreamEventType.STAGE_COMPLETED, "reviewer", summary))
    return reviewed


async def run_answer(
    state: ExecutionState, context: RunContext, *, diff_text: str | None = None
) -> ExecutionState:
    """Answer the question in `state.request` (read-only); the result holds `answer`."""

    def start(
        driver: DriverInterface, current: ExecutionState
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        return Answerer(
            driver, project_instructions=context.profile.agent("answerer").instructions
        ).answer(
            current, workflow_id=context.workflow_id, repo_dir=context.repo_dir, diff_text=diff_text
        )

    answered = await _run_stage("answerer", state, context, start, "answering a question")
    done = f"answered — {runs_on(context, 'answerer')}"
    await context.emit(context.event(StreamEventType.STAGE_COMPLETED, "answerer", done))
    return answered


async def current_head(repo: Repo) -> str:
    """The commit the worktree is on; the default base of a review."""
    return await asyncio.to_thread(head_sha, repo)
