"""`/amelia plan` (or the trigger label): commit an implementation plan on the issue's branch.

The branch is `<branch_prefix>issue-<n>`, made from the default branch or continued when it
already exists on origin, in which case the plan file found there is rewritten. The issue
text is sanitized before the architect sees it. The plan is committed by amelia[bot] with
the person who asked as co-author and pushed before any comment links to it.
"""

from __future__ import annotations

import asyncio

from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._commits import co_author, commit_subject
from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.git import (
    remote_branch_exists,
    switch_to_branch,
    validate_branch_name,
)

__all__ = [
    "MODE",
    "STAGES",
    "STAGE_ARCHITECT",
    "STAGE_BRANCH",
    "STAGE_PUBLISH",
    "co_author",
    "commit_subject",
    "commit_title",
    "run",
]


STAGE_BRANCH = "prepare branch"
STAGE_ARCHITECT = "architect"
STAGE_PUBLISH = "commit and push"
STAGES = (STAGE_BRANCH, STAGE_ARCHITECT, STAGE_PUBLISH)


def commit_title(number: int, title: str) -> str:
    return commit_subject("Plan", number, title)


async def run(ctx: ModeContext, _: None) -> ModeOutcome:
    from amelia.core.state import ExecutionState
    from amelia.pipeline import run_plan
    from amelia.pipeline.planfile import existing_plan

    number = ctx.command.number
    if number is None:
        return ModeOutcome(conclusion="failure", failure_reason="plan needs an issue number")
    info = await ctx.github.get_issue(number)
    if info.is_pull_request:
        return ModeOutcome(
            conclusion="failure", failure_reason=f"#{number} is a pull request, not an issue"
        )
    repo = ctx.checkout.path
    prefix = ctx.inputs.branch_prefix
    branch = validate_branch_name(f"{prefix}issue-{number}", prefix=prefix or None)

    await ctx.stage(STAGE_BRANCH, "running")
    # Reading origin needs the token on a private repository; no agent runs meanwhile.
    remote = ctx.checkout.remote()
    continued = await asyncio.to_thread(remote_branch_exists, remote, branch)
    await asyncio.to_thread(switch_to_branch, remote, branch, on_remote=continued)
    previous = existing_plan(repo, ctx.inputs.plan_dir, number)
    detail = f"continuing {branch}" if continued else f"new branch {branch}"
    await ctx.stage(STAGE_BRANCH, "done", detail=detail)

    issue = agent_issue(info)
    profile = ctx.profile
    if previous is not None:
        profile = profile.model_copy(update={"plan_path_pattern": previous})
    pipeline = ctx.run_context(profile=profile)
    start = ExecutionState(issue=issue, request=agent_request(ctx.command))
    state = await run_plan(start, pipeline)
    plan_path = state.plan_path or ""

    await ctx.stage(STAGE_PUBLISH, "running")
    sha = await asyncio.to_thread(
        ctx.checkout.publisher.commit_path,
        plan_path,
        commit_title(number, info.title),
        co_author=co_author(ctx.command.requested_by, server_url=ctx.runner.server_url),
    )
    sha = await asyncio.to_thread(ctx.checkout.publisher.push, branch)
    where = "committed locally (dry run, not pushed)" if ctx.dry_run else f"pushed to {branch}"
    await ctx.stage(STAGE_PUBLISH, "done", detail=where)
    return ModeOutcome(
        outputs={"plan_path": plan_path, "branch": branch},
        links=(("Plan", ctx.blob_url(sha, plan_path)), (f"Branch {branch}", ctx.tree_url(branch))),
        state=state,
    )


MODE = Mode(name="plan", run=run, stages=STAGES)
