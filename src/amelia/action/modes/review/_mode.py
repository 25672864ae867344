"""Review a pull request: `pull_request` opened/synchronize/reopened/ready_for_review, or
`/amelia review` commented on it.

The head is fetched from origin (`refs/pull/<n>/head`, or the head branch) and checked out
detached; files that steer agents are reset to the base's version first (see
`amelia.action.modes._steering`). For a fork's pull request (whatever the event:
`pull_request_target` with `review_forks: true`, or a maintainer's `/amelia review`) and on
any `pull_request_target`, the checkout stays at the base and the head is only data, in a
directory of its own, read by a reviewer with file-reading tools alone (`fetched_head`,
`amelia.action.modes._pull_head._fork_reviews.head_is_data`,
`amelia.action.modes._pull_head._pull_head.head_as_data`). The reviewer (read-only tools)
reviews the change since the merge base of head and base, or only the commits since the
last reviewed one (see `amelia.action.modes.review._scope`), and its result is set
against the findings earlier reviews left open (`amelia.action.modes.review._earlier_findings`).
The verdict is posted as one review of the head commit, anchored on the diff GitHub shows
for the pull (the local diff when the API has none, or answers 406 `too_large` for a big
pull); error-flagged tool results go into one comment on the pull.
"""

from __future__ import annotations

import asyncio

from loguru import logger

from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._pull_head import FORK_REVIEW_NOTE, fetched_head, head_run_context
from amelia.action.modes._pull_head._pull_head import PullHead
from amelia.action.modes._verdicts import (
    APPROVAL_WITHHELD_NOTE,
    failed_tools_posted,
    post_tool_errors,
    post_verdict,
    withhold_approval,
)
from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.action.modes.review._earlier_findings import (
    close_fixed,
    render_earlier_findings,
    settle,
)
from amelia.action.modes.review._scope import plan_scope, requested_kind
from amelia.git import diff
from amelia.github.auth import may_trigger
from amelia.github.events import PullRequestEvent
from amelia.github.models import PullInfo
from amelia.github.review_history import load_review_history

__all__ = ["MODE", "pull_diff", "run", "steering_note"]


def steering_note(restored: tuple[str, ...]) -> str:
    if not restored:
        return ""
    listed = ", ".join(f"`{path}`" for path in restored[:10])
    more = f" and {len(restored) - 10} more" if len(restored) > 10 else ""
    return (
        f"_This pull request changes files that steer coding agents ({listed}{more}); "
        "they were not shown to the reviewer and need a human review._"
    )


async def pull_diff(ctx: ModeContext, number: int, checked: PullHead) -> str:
    """The pull's diff as GitHub shows it, where inline comments are placed; the checkout's
    own diff of the same commits when GitHub has none or refuses a big pull (406
    `too_large`)."""
    diff_text = await ctx.github.get_pull_diff(number)
    if diff_text is None:
        logger.warning(
            "pull #{} is too large for GitHub's diff: inline comments are placed on the "
            "checkout's own diff of the same commits",
            number,
        )
    if diff_text is None or not diff_text.strip():
        diff_text = await asyncio.to_thread(
            diff, checked.git, checked.merge_base, head=checked.head_sha
        )
    return diff_text


async def run(ctx: ModeContext, _: None) -> ModeOutcome:
    number = ctx.command.number
    if number is None:
        return ModeOutcome(conclusion="failure", failure_reason="review needs a pull request")
    pull = await ctx.github.get_pull(number)
    if pull.state != "open":
        ctx.io.notice(f"amelia: pull request #{number} is {pull.state}; nothing to review")
        return ModeOutcome(conclusion="skipped", outputs={"pr_number": str(number)})
    async with fetched_head(ctx, pull) as checked:
        return await _review(ctx, pull, checked)


async def _review(ctx: ModeContext, pull: PullInfo, checked: PullHead) -> ModeOutcome:
    """Review the head fetched in `checked.directory` and post the verdict."""
    from amelia.core.state import ExecutionState
    from amelia.pipeline import run_review

    number = pull.number
    git = checked.git
    on_push = isinstance(ctx.event, PullRequestEvent) and ctx.event.action == "synchronize"
    kind = requested_kind(ctx.inputs.review_scope, on_push=on_push, notes=ctx.command.instructions)
    history = await load_review_history(ctx.github, number)
    scope = await asyncio.to_thread(
        plan_scope,
        git,
        merge_base_sha=checked.merge_base,
        head=checked.head_sha,
        history=history,
        kind=kind,
    )

    # Files earlier steps left in the checkout; a head kept as data has none.
    pipeline = head_run_context(ctx, checked, preexisting=not checked.as_data)
    start = ExecutionState(issue=agent_issue(pull), request=agent_request(ctx.command))
    async with failed_tools_posted(ctx.github, number, ctx.redactor):
        state = await run_review(start, pipeline, base_ref=scope.base, scope=scope)
    if state.last_review is None:
        return ModeOutcome(conclusion="failure", failure_reason="the reviewer gave no verdict")
    push_diff = ""
    if scope.kind == "incremental" and state.last_review.fixed:
        push_diff = await asyncio.to_thread(
            diff, git, scope.base, head=scope.head, merge_base=False
        )
    settled = settle(state.last_review, history, scope, push_diff=push_diff, redactor=ctx.redactor)
    review = settled.result
    state = state.evolve(last_review=review)

    diff_text = await pull_diff(ctx, number, checked)
    setting = ctx.inputs.review_event
    notes = [render_earlier_findings(settled), steering_note(checked.restored)]
    if checked.as_data:
        # A fork's pull request is never approved, whoever its author is.
        setting = withhold_approval(setting)
        notes.append(FORK_REVIEW_NOTE)
    elif setting in ("APPROVE", "AUTO"):
        author = await may_trigger(ctx.github, pull.author, allowed_users=ctx.inputs.allowed_users)
        if not author.allowed:
            setting = withhold_approval(setting)
            if review.approved:
                notes.append(APPROVAL_WITHHELD_NOTE)
    posted = await post_verdict(
        ctx.github,
        number,
        review,
        diff_text,
        checked.head_sha,
        ctx.redactor,
        setting=setting,
        note="\n\n".join(note for note in notes if note),
        scope=scope,
    )
    await close_fixed(ctx.github, number, settled.fixed, checked.head_sha, warn=ctx.io.warning)
    await post_tool_errors(ctx.github, number, state.tool_results, ctx.redactor)
    links = (("Review", posted.html_url),) if posted.html_url else ()
    return ModeOutcome(
        outputs={"pr_number": str(number), "verdict": review.verdict},
        links=links,
        state=state,
    )


MODE = Mode(name="review", run=run)
