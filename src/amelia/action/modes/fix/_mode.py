"""`/amelia fix [notes]` on a pull request (or in one of its review threads): address the
open review threads on the pull's head branch.

Only a pull request whose head branch is in this repository: amelia never pushes to a
fork (a fork's pull request gets one reply and nothing else). The open threads (see
`amelia.action.modes.fix._threads`; in a thread, only that one) reach the developer with their
path, line, diff hunk and text, sanitized; it changes the head branch, its work is
committed and pushed as in implement mode, and every thread gets a reply in it
(`Addressed in <sha>: …`, or why it was not changed). Then the reviewer reviews the whole
pull request again and its verdict is posted as one new review. Files that steer agents
are reset to the base's version before any agent runs (never committed), and error-flagged
tool results are posted as in implement mode. amelia's part of the description of its own
draft is rewritten with this run's rounds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import NoReturn

from amelia.action.modes import _develop
from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._replies import post_where_asked
from amelia.action.modes._steering import reset_steering_files
from amelia.action.modes._verdicts import post_tool_errors, reported_verdict
from amelia.action.modes.base import Mode, ModeContext, ModeExit, ModeOutcome
from amelia.action.modes.fix._threads import FIX_REPLY, open_threads, outcomes, reply_text
from amelia.core.state import ExecutionState, ReviewResult, ReviewThread
from amelia.git import head_sha, switch_to_branch, validate_branch_name
from amelia.github.comments import render_reply
from amelia.github.markers import BODY_BEGIN
from amelia.github.models import PullInfo
from amelia.pipeline.planfile import existing_plan

__all__ = ["MODE", "STAGES", "Found", "answer", "fix", "prepare"]

STAGE_BRANCH = "check out pull request"
STAGE_REPLIES = "replies"
STAGES = (STAGE_BRANCH, *_develop.ROUND_STAGES, STAGE_REPLIES)


async def answer(ctx: ModeContext, text: str) -> None:
    """One plain reply where the command was given: in its review thread, else on the pull."""
    await post_where_asked(ctx.github, ctx.command, render_reply(text, ctx.redactor))


async def _skip(ctx: ModeContext, number: int, text: str) -> NoReturn:
    """Answer `text` where the command was given and end the run `skipped`."""
    await answer(ctx, text)
    raise ModeExit(ModeOutcome(conclusion="skipped", outputs={"pr_number": str(number)}))


@dataclass(frozen=True)
class Found:
    """What `prepare` found: the pull request and the threads to address."""

    pull: PullInfo
    threads: tuple[ReviewThread, ...]


async def prepare(ctx: ModeContext) -> Found:
    """Refuse a fork's pull request and a pull with nothing to address before any progress
    comment exists."""
    number = ctx.command.number
    if number is None:
        raise ModeExit(ModeOutcome(conclusion="failure", failure_reason="fix needs a pull request"))
    pull = await ctx.github.get_pull(number)
    if pull.state != "open":
        await _skip(
            ctx, number, f"pull request #{number} is {pull.state}; there is nothing to fix."
        )
    if pull.from_fork:
        await _skip(
            ctx,
            number,
            f"I do not push to forks: the head of this pull request is in `{pull.head_repo}`. "
            "Its author can apply the review comments, or a maintainer can move the branch "
            "into this repository.",
        )
    threads = await open_threads(
        ctx.github,
        number,
        only=ctx.command.reply_to,
        skip_comment=ctx.command.comment_id,
        trigger_phrase=ctx.inputs.trigger_phrase,
    )
    if not threads:
        await _skip(
            ctx, number, "there is no open review thread for me to address on this pull request."
        )
    return Found(pull, tuple(threads))


async def fix(ctx: ModeContext, found: Found) -> ModeOutcome:
    """Address the threads `prepare` found on the pull's head branch and review it again."""
    pull, threads = found.pull, found.threads
    git = ctx.checkout.git
    branch = validate_branch_name(pull.head_ref)
    await ctx.stage(STAGE_BRANCH, "running")
    remote = ctx.checkout.remote()
    await asyncio.to_thread(switch_to_branch, remote, branch)
    base = await asyncio.to_thread(_develop.fetch_base, remote, pull.base_ref, branch)
    before = await asyncio.to_thread(head_sha, git)
    # Before any agent, never committed: the agents' work is what they change from here on.
    restored = await asyncio.to_thread(reset_steering_files, git, base)
    await ctx.stage(STAGE_BRANCH, "done", detail=f"{branch}, {len(threads)} open thread(s)")

    prepared = await _develop.set_up(ctx, pull.base_ref)
    state = ExecutionState(
        issue=agent_issue(pull),
        threads=threads,
        request=agent_request(ctx.command),
        base_ref=base,
        **_plan_of(ctx, branch),
    )
    ci = _develop.RepositoryCi(ctx, branch)
    state = await _develop.develop(
        ctx,
        state,
        prepared,
        branch=branch,
        message=f"Address review comments on #{pull.number}",
        base=base,
        failures_on=pull.number,
        ci=ci,
        # One developer round on the threads, then one review of the whole pull request.
        profile=ctx.profile.model_copy(update={"max_review_iterations": 1}),
    )

    await ctx.stage(STAGE_REPLIES, "running")
    head = await asyncio.to_thread(head_sha, git)
    commit = head if head != before else None
    said = outcomes(state.developer_output or "")
    for thread in threads:
        text = reply_text(said.get(thread.id), commit)
        body = f"{FIX_REPLY}\n{ctx.redactor.redact(text)}\n"
        await ctx.github.reply_to_review_comment(pull.number, thread.id, body)
    review = state.last_review
    if commit is None:
        # Nothing changed: the threads have the developer's answers, but an unchanged pull
        # request gets no verdict (no approval) from this run.
        await post_tool_errors(ctx.github, pull.number, state.tool_results, ctx.redactor)
        await ctx.stage(STAGE_REPLIES, "done", detail=f"{len(threads)} thread(s) answered")
        return ModeOutcome(
            conclusion="no_changes",
            failure_reason=(
                f"the developer changed nothing: no commit was pushed to {branch}; the "
                "threads got its answers, no verdict was posted"
            ),
            outputs={"pr_number": str(pull.number), "branch": branch},
            state=state,
        )
    if review is not None:
        kept = ("_Files that steer agents were kept at the base's version._",)
        await _develop.post_review(
            ctx, pull.number, state, base=base, head=head, ci=ci, notes=kept if restored else ()
        )
        await _update_description(ctx, pull, state, base=base, head=head, review=review)
    await post_tool_errors(ctx.github, pull.number, state.tool_results, ctx.redactor)
    all_pushed = ctx.checkout.publisher.all_pushed
    pushed = f"pushed {head[:12]}" if commit else "no new commit"
    await ctx.stage(STAGE_REPLIES, "done", detail=f"{len(threads)} thread(s) answered, {pushed}")
    links = ((f"Pull request #{pull.number}", pull.html_url),) if pull.html_url else ()
    return ModeOutcome(
        outputs={
            "pr_number": str(pull.number),
            "branch": branch,
            **(
                {"verdict": reported_verdict(review, all_pushed=all_pushed, ci=state.last_ci)}
                if review
                else {}
            ),
        },
        links=links,
        state=state,
        warnings=ci.warnings,
    )


def _plan_of(ctx: ModeContext, branch: str) -> dict[str, str]:
    """The plan of amelia's own draft (its branch names the issue), as context."""
    number = _develop.issue_of_branch(branch, ctx.inputs.branch_prefix)
    if number is None:
        return {}
    path = existing_plan(ctx.checkout.path, ctx.inputs.plan_dir, number)
    if path is None:
        return {}
    text = (ctx.checkout.path / path).read_text(encoding="utf-8", errors="replace")
    return {"plan_markdown": text, "plan_path": path}


async def _update_description(
    ctx: ModeContext,
    pull: PullInfo,
    state: ExecutionState,
    *,
    base: str,
    head: str,
    review: ReviewResult,
) -> None:
    """Rewrite amelia's part of the description of its own draft with this run's round;
    a description without amelia's part (someone else's pull request) is left alone."""
    current = await ctx.github.get_pull(pull.number)
    number = _develop.issue_of_branch(pull.head_ref, ctx.inputs.branch_prefix)
    if BODY_BEGIN not in current.body or number is None or state.plan_path is None:
        return
    earlier = _develop.earlier_rounds(current.body)
    rounds = [*earlier, _develop.round_line("fix", review, _develop.next_round(earlier, "fix"))]

    plan_path = state.plan_path

    def body_for() -> str:
        ours = _develop.describe(
            ctx,
            number,
            plan_path,
            state,
            base=base,
            head=head,
            rounds=rounds,
            ci=state.last_ci,
        )
        return _develop.merge_pull_body(current.body, ours)

    merged = await asyncio.to_thread(body_for)
    await ctx.github.update_pull(pull.number, body=merged)


MODE = Mode(name="fix", run=fix, prepare=prepare, stages=STAGES)
