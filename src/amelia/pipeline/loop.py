"""The develop <-> review loop, and the whole pipeline: plan, then that loop.

This is the only develop -> review loop: the Action's implement mode, the command line
and the demo all run it. `after_stage(role, state)` lets the caller commit, push or report
between stages; the loop itself never talks to GitHub.
"""

from __future__ import annotations

from amelia.core.state import ExecutionState
from amelia.core.types import AgentRole, StreamEventType
from amelia.errors import GitError
from amelia.pipeline.checks import enforce_check, run_check
from amelia.pipeline.ci_gate import enforce_ci
from amelia.pipeline.context import RunContext, StageHook
from amelia.pipeline.stages import (
    BudgetExceededError,
    StageFailedError,
    current_head,
    run_implement,
    run_plan,
    run_review,
)

__all__ = ["develop_and_review", "run_pipeline"]


async def _after(hook: StageHook | None, role: AgentRole, state: ExecutionState) -> ExecutionState:
    if hook is None:
        return state
    return (await hook(role, state)) or state


async def develop_and_review(
    state: ExecutionState,
    context: RunContext,
    *,
    base_ref: str,
    after_stage: StageHook | None = None,
) -> ExecutionState:
    """Develop and review until approved or `profile.max_review_iterations` rounds.

    Reviews cover the changes since `base_ref`. `after_stage(role, state)` runs after every
    developer and reviewer round and may return an updated state. The context's test
    command runs after each developer round (and its hook), before the review; while it
    fails, or the repository's CI on the pushed commit (`state.last_ci`, which
    `after_stage` may set) fails, the verdict is never `approved`. Approval is
    `result.last_review.approved`; `StageFailedError` ends the loop early. A developer
    stopped by the budget (`BudgetExceededError`) still gets `after_stage`, so its work is
    kept; nothing runs after it. Drivers are created once per role and reused across
    rounds.
    """
    run = context.reusing_drivers()
    origin = run.test_command.origin if run.test_command is not None else "test_command"
    for _ in range(run.profile.max_review_iterations):
        try:
            implemented = await run_implement(state, run)
        except BudgetExceededError as stop:
            if stop.during:
                # What the developer did within the budget is kept like any round's work,
                # and what keeping it learnt (the CI of the pushed work) stays in the state
                # the stop reports.
                stop.state = await _after(after_stage, "developer", stop.state)
            raise
        state = await _after(after_stage, "developer", implemented)
        state = await run_check(state, run)
        reviewed = enforce_check(await run_review(state, run, base_ref=base_ref), origin=origin)
        reviewed = enforce_ci(reviewed)
        state = await _after(after_stage, "reviewer", reviewed)
        if state.last_review is not None and state.last_review.approved:
            break
    return state


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
    run = context.reusing_drivers()
    try:
        base = base_ref or await current_head(run.repo_git)
    except GitError as error:
        await run.emit(
            run.event(StreamEventType.WORKFLOW_FAILED, "pipeline", str(error), error=True)
        )
        raise StageFailedError("architect", str(error), state) from error
    state = state.evolve(base_ref=base)
    state = await _after(after_stage, "architect", await run_plan(state, run))
    state = await develop_and_review(state, run, base_ref=base, after_stage=after_stage)
    review = state.last_review
    outcome = (
        f"approved after {state.review_iteration} review(s)"
        if review is not None and review.approved
        else f"not approved after {state.review_iteration} review(s)"
    )
    await run.emit(run.event(StreamEventType.WORKFLOW_COMPLETED, "pipeline", outcome))
    return state
