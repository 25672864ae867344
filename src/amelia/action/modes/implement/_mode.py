"""`/amelia implement`: carry out the committed plan of an issue and open a draft pull request.

Works on the issue's branch `<branch_prefix>issue-<n>` as `/amelia plan` left it on origin.
Without that branch or without a plan file on it, the run replies on the issue suggesting
`/amelia plan` and ends `skipped` (exit 0, no agent runs, no progress comment). Otherwise
the project's setup runs first (`amelia.action.modes._develop._toolchain`; a failing one
ends the run before any agent), then developer → reviewer rounds run, amelia running the
project's test command after each developer round (up to `max_review_iterations`, until the reviewer
approves); after every developer round the agents' work (only theirs: files earlier
steps left in the checkout stay as they are, and files named like credentials are left
out and reported) is committed by amelia[bot] with the person who asked as co-author and
pushed, so every link posted afterwards resolves. Then
the draft pull request (new, or the open one for the branch, where only amelia's part of
the description, between its markers, is rewritten) links the issue and the plan,
the last verdict is posted as its review, and failed tool calls as one comment on it.
A run that stops early still posts its failed tool calls, on the pull request if one is
open, else on the issue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NoReturn

from amelia.action.modes import _develop
from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._commits import commit_subject
from amelia.action.modes._verdicts import post_tool_errors, reported_verdict
from amelia.action.modes.base import Mode, ModeContext, ModeExit, ModeOutcome
from amelia.core.state import ReviewResult
from amelia.git import (
    ChangedFile,
    Repo,
    diff_files,
    head_sha,
    remote_branch_exists,
    remote_default_branch,
    switch_to_branch,
    validate_branch_name,
)
from amelia.github.comments import render_reply
from amelia.github.models import PullInfo
from amelia.pipeline.planfile import existing_plan

__all__ = [
    "MODE",
    "NO_CHANGES",
    "STAGES",
    "STAGE_BRANCH",
    "STAGE_PUBLISH",
    "Planned",
    "commit_title",
    "fetch_default",
    "implement",
    "no_plan_reply",
    "prepare",
]


STAGE_BRANCH = "check out plan"
STAGE_PUBLISH = "pull request"
STAGES = (STAGE_BRANCH, *_develop.ROUND_STAGES, STAGE_PUBLISH)
NO_CHANGES = (
    "the developer changed nothing: branch {branch} holds only the plan, so no pull "
    "request was opened and no verdict was posted"
)


def no_plan_reply(trigger_phrase: str, branch: str, reason: str) -> str:
    return (
        f"I cannot implement this yet: {reason} (looked on branch `{branch}`).\n\n"
        f"Comment `{trigger_phrase} plan` first; once the plan is committed, "
        f"`{trigger_phrase} implement` carries it out."
    )


def commit_title(number: int, title: str) -> str:
    return commit_subject("Implement", number, title)


def fetch_default(repo: Repo, branch: str) -> tuple[str, str]:
    """Fetch the default branch: its name and its merge base with `branch`, checked out
    (the pull's base), deepening a shallow checkout as far as that takes."""
    default = validate_branch_name(remote_default_branch(repo))
    return default, _develop.fetch_base(repo, default, branch)


async def _resolve_issue(ctx: ModeContext, number: int) -> int:
    """The issue to implement: `number` itself, or the issue of the plan pull `number`.
    Where there is none (a fork's pull request, a pull not on a plan branch) the run ends
    with one reply saying why."""
    info = await ctx.github.get_issue(number)
    if not info.is_pull_request:
        return number
    pull = await ctx.github.get_pull(number)
    if pull.from_fork:
        # Its branch is not ours: a plan branch of the same name would be origin's.
        await _skip(
            ctx,
            number,
            "this pull request comes from a fork; amelia implements only its own plans.",
        )
    issue = _develop.issue_of_branch(pull.head_ref, ctx.inputs.branch_prefix)
    if issue is None:
        await _skip(ctx, number, "this pull request is not on an amelia plan branch.")
    return issue


async def _skip(
    ctx: ModeContext, number: int, text: str, *, outputs: dict[str, str] | None = None
) -> NoReturn:
    """Reply `text` on `number` and end the run `skipped`."""
    await ctx.github.create_comment(number, render_reply(text, ctx.redactor))
    raise ModeExit(ModeOutcome(conclusion="skipped", outputs=outputs or {}))


@dataclass(frozen=True)
class Planned:
    """What `prepare` found: the issue, its plan branch and the plan file on it."""

    asked_on: int
    """Where the command was given: the issue, or its plan's pull request."""
    number: int
    branch: str
    plan_path: str


async def prepare(ctx: ModeContext) -> Planned:
    """Find the issue's plan branch and plan file before any progress comment exists, so a
    missing plan gets one plain reply instead of a progress comment that ends in "Done"."""
    asked_on = ctx.command.number
    if asked_on is None:
        raise ModeExit(
            ModeOutcome(conclusion="failure", failure_reason="implement needs an issue number")
        )
    number = await _resolve_issue(ctx, asked_on)
    repo = ctx.checkout.path
    prefix = ctx.inputs.branch_prefix
    branch = validate_branch_name(f"{prefix}issue-{number}", prefix=prefix or None)
    phrase = ctx.inputs.trigger_phrase
    outputs = {"branch": branch}

    remote = ctx.checkout.remote()
    planned = await asyncio.to_thread(remote_branch_exists, remote, branch)
    if planned:
        await asyncio.to_thread(switch_to_branch, remote, branch, on_remote=True)
    if not planned:
        reply = no_plan_reply(phrase, branch, "this issue has no plan")
        await _skip(ctx, asked_on, reply, outputs=outputs)
    plan_path = existing_plan(repo, ctx.inputs.plan_dir, number)
    if plan_path is None:
        reason = f"no plan file under `{ctx.inputs.plan_dir}/`"
        await _skip(ctx, asked_on, no_plan_reply(phrase, branch, reason), outputs=outputs)
    return Planned(asked_on, number, branch, plan_path)


async def implement(ctx: ModeContext, planned: Planned) -> ModeOutcome:
    """Carry out the plan `prepare` found and open or update the draft pull request."""
    from amelia.core.state import ExecutionState
    from amelia.pipeline import BudgetExceededError

    repo, git = ctx.checkout.path, ctx.checkout.git
    number, branch, plan_path = planned.number, planned.branch, planned.plan_path
    await ctx.stage(STAGE_BRANCH, "running")
    remote = ctx.checkout.remote()
    default_branch, base = await asyncio.to_thread(fetch_default, remote, branch)
    plan_sha = await asyncio.to_thread(head_sha, git)
    await ctx.stage(STAGE_BRANCH, "done", detail=f"{branch} with {plan_path}")

    # Before any agent: the setup (and any script it names) comes from the default branch.
    prepared = await _develop.set_up(ctx, default_branch)

    info = await ctx.github.get_issue(number)
    existing = await ctx.github.find_open_pull(branch)
    state = ExecutionState(
        issue=agent_issue(info),
        plan_markdown=(repo / plan_path).read_text(encoding="utf-8"),
        plan_path=plan_path,
        base_ref=base,
        request=agent_request(ctx.command),
    )
    message = commit_title(number, info.title)
    rounds: list[str] = []
    ci = _develop.RepositoryCi(ctx, branch)

    def on_review(review: ReviewResult, round_number: int) -> None:
        rounds.append(_develop.round_line("implement", review, round_number))

    async def open_draft_for_ci(current: ExecutionState, head: str) -> None:
        """With a token whose events start workflows, open the draft at the first push
        that holds work (`head`, just pushed): the workflows on `pull_request` run only for
        an open pull request, and amelia waits for them after each push."""
        nonlocal existing
        if existing is not None or not await ci.started_by_pull_request():
            return
        if head == plan_sha:
            return
        existing, _head = await publish_draft(current, head=head)

    async def publish_draft(
        current: ExecutionState,
        *,
        stopped: str | None = None,
        head: str | None = None,
        files: Sequence[ChangedFile] | None = None,
    ) -> tuple[PullInfo, str]:
        """Open or update the draft for `current`; the pull and the head it shows. `head`
        and `files` (what the change from `base` to it does to each file) are what the
        caller has just read of the checkout (None: asked here)."""
        await ctx.stage(STAGE_PUBLISH, "running")
        if head is None:
            head = await asyncio.to_thread(head_sha, git)

        def body_for(description: str) -> str:
            earlier = [*_develop.earlier_rounds(description), *rounds]
            return _develop.describe(
                ctx,
                number,
                plan_path,
                current,
                base=base,
                head=head,
                rounds=earlier,
                stopped=stopped,
                ci=current.last_ci or ci.latest,
                files=files,
            )

        pull = await _open_or_update_pull(ctx, existing, branch, default_branch, message, body_for)
        await ctx.stage(STAGE_PUBLISH, "done", detail=_published(ctx, pull, head, plan_sha))
        return pull, head

    async def on_budget(stop: BudgetExceededError) -> None:
        # The work done within the budget is pushed: the draft shows it and says why the
        # run stopped, so nothing is lost and nobody mistakes it for a reviewed change.
        pull, _head = await publish_draft(stop.state, stopped=stop.reason)
        await post_tool_errors(ctx.github, pull.number, stop.state.tool_results, ctx.redactor)

    state = await _develop.develop(
        ctx,
        state,
        prepared,
        branch=branch,
        message=message,
        base=base,
        # Failed tool calls go to the draft once it is open (also when a round opened it).
        failures_on=lambda: existing.number if existing is not None else planned.asked_on,
        ci=ci,
        after_push=open_draft_for_ci,
        on_review=on_review,
        on_budget=on_budget,
    )

    # Asked once after the last agent: the check below, the pull's description and the
    # review all read this head and its files.
    head = await asyncio.to_thread(head_sha, git)
    files = await asyncio.to_thread(diff_files, git, base, head=head)
    if not [file for file in files if file.path != plan_path]:
        # Nothing but the plan: no pull request that closes the issue, nothing approved.
        reason = NO_CHANGES.format(branch=branch)
        await ctx.stage(STAGE_PUBLISH, "skipped", detail="the developer changed nothing")
        where = existing.number if existing is not None else planned.asked_on
        await post_tool_errors(ctx.github, where, state.tool_results, ctx.redactor)
        return ModeOutcome(
            conclusion="no_changes",
            failure_reason=reason,
            outputs={"branch": branch, "plan_path": plan_path},
            state=state,
        )
    pull, head = await publish_draft(state, head=head, files=files)
    review = state.last_review
    all_pushed = ctx.checkout.publisher.all_pushed
    verdict = (
        reported_verdict(review, all_pushed=all_pushed, ci=state.last_ci)
        if review is not None
        else None
    )
    # A dry run's head is a local commit GitHub does not have: its plan is the branch's.
    plan_url = ctx.blob_url(branch if ctx.dry_run else head, plan_path)
    await _develop.post_review(ctx, pull.number, state, base=base, head=head, ci=ci)
    await post_tool_errors(ctx.github, pull.number, state.tool_results, ctx.redactor)
    links = (
        # None in a dry run that opened no pull request.
        (f"Draft pull request #{pull.number}", pull.html_url if pull.number else None),
        ("Plan", plan_url),
        (f"Branch {branch}", ctx.tree_url(branch)),
    )
    return ModeOutcome(
        outputs={
            **({"pr_number": str(pull.number)} if pull.number else {}),
            "branch": branch,
            "plan_path": plan_path,
            **({"verdict": verdict} if verdict else {}),
        },
        links=tuple((label, url) for label, url in links if url),
        state=state,
        warnings=ci.warnings,
    )


async def _open_or_update_pull(
    ctx: ModeContext,
    existing: PullInfo | None,
    branch: str,
    base: str,
    title: str,
    body_for: Callable[[str], str],
) -> PullInfo:
    """Open the draft, or rewrite amelia's part of the open one's description;
    `body_for(current description)` makes amelia's part."""
    if existing is not None:
        # Read the description now, not before the rounds: someone may have edited it.
        current = await ctx.github.get_pull(existing.number)
        merged = _develop.merge_pull_body(
            current.body, await asyncio.to_thread(body_for, current.body)
        )
        return await ctx.github.update_pull(existing.number, body=merged)
    body = await asyncio.to_thread(body_for, "")
    return await ctx.github.create_pull(branch, base, title, body, draft=True)


MODE = Mode(name="implement", run=implement, prepare=prepare, stages=STAGES)


def _published(ctx: ModeContext, pull: PullInfo, head: str, plan_sha: str) -> str:
    """What the publish stage did: the pull request and the commits it shows; in a dry
    run, what it would have done, since nothing was pushed or opened."""
    done = f"committed {head[:12]} locally" if ctx.dry_run else f"pushed {head[:12]}"
    changed = "no new commits" if head == plan_sha else done
    if not ctx.dry_run:
        return f"#{pull.number} ({changed})"
    target = f"update #{pull.number}" if pull.number else "open the draft pull request"
    return f"dry run: would {target} ({changed}, not pushed)"
