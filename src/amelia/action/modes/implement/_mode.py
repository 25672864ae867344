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
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from amelia.action.held_back_report import held_back_lines, verdict_note
from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._develop._pull_description import ChangeReport, earlier_rounds, round_line
from amelia.action.modes._develop._repository_ci import STAGE_CI, RepositoryCi
from amelia.action.modes._verdicts import (
    CI_NOT_PASSED,
    NOT_ALL_PUSHED,
    post_tool_errors,
    post_verdict,
    reported_verdict,
)
from amelia.action.modes.base import Mode, ModeContext, ModeExit, ModeOutcome
from amelia.action.modes.plan import co_author, commit_subject
from amelia.ci.render import ci_lines
from amelia.git import (
    Leak,
    Repo,
    changed_paths,
    diff,
    fetch_branch,
    head_sha,
    merge_base_deepening,
    remote_branch_exists,
    remote_default_branch,
    switch_to_branch,
    validate_branch_name,
)
from amelia.github.comments import render_reply
from amelia.github.markers import BODY_BEGIN, BODY_END, marker
from amelia.github.models import PullInfo
from amelia.pipeline.planfile import existing_plan
from amelia.text import code_fence, inline_code

if TYPE_CHECKING:
    from amelia.action.held_back import HeldBackWork
    from amelia.core.ci import CiReport
    from amelia.core.state import CheckRun

__all__ = [
    "MODE",
    "NO_CHANGES",
    "STAGES",
    "STAGE_BRANCH",
    "STAGE_DEVELOPER",
    "STAGE_PUBLISH",
    "STAGE_REVIEWER",
    "STAGE_SETUP",
    "STAGE_TESTS",
    "Planned",
    "check_lines",
    "commit_and_push",
    "commit_title",
    "fetch_base",
    "fetch_default",
    "implement",
    "issue_of_branch",
    "merge_pull_body",
    "no_plan_reply",
    "prepare",
    "pull_body",
]


STAGE_BRANCH = "check out plan"
STAGE_SETUP = "setup"
STAGE_DEVELOPER = "developer"
STAGE_TESTS = "tests"
STAGE_REVIEWER = "reviewer"
STAGE_PUBLISH = "pull request"
STAGES = (
    STAGE_BRANCH,
    STAGE_SETUP,
    STAGE_DEVELOPER,
    STAGE_CI,
    STAGE_TESTS,
    STAGE_REVIEWER,
    STAGE_PUBLISH,
)
NO_CHANGES = (
    "the developer changed nothing: branch {branch} holds only the plan, so no pull "
    "request was opened and no verdict was posted"
)


def issue_of_branch(branch: str, prefix: str) -> int | None:
    """The issue number of a plan branch `<prefix>issue-<n>`, None for other branches."""
    found = re.fullmatch(re.escape(prefix) + r"issue-(\d+)", branch)
    return int(found.group(1)) if found else None


def no_plan_reply(trigger_phrase: str, branch: str, reason: str) -> str:
    return (
        f"I cannot implement this yet: {reason} (looked on branch `{branch}`).\n\n"
        f"Comment `{trigger_phrase} plan` first; once the plan is committed, "
        f"`{trigger_phrase} implement` carries it out."
    )


def commit_title(number: int, title: str) -> str:
    return commit_subject("Implement", number, title)


def pull_body(
    number: int,
    plan_path: str,
    plan_url: str,
    verdict: str | None,
    *,
    flagged: tuple[Leak, ...] = (),
    withheld: tuple[str, ...] = (),
    check: CheckRun | None = None,
    report: ChangeReport | None = None,
    stopped: str | None = None,
    held_back: HeldBackWork | None = None,
    ci: CiReport | None = None,
) -> str:
    """amelia's part of the pull request's description, between its begin and end markers.

    `flagged` are strings shaped like credentials in the pushed change, `withheld` files the
    agents wrote that were not committed: both are for the person who reviews. `check` is
    the test command's last run (its tail collapsed). `report` lists the change by file,
    the review rounds, the tests the developer ran and the cost. `stopped` says why the
    run ended before the reviewer saw this change (the budget). `held_back` are the files
    of the change GitHub would refuse in a push: named, with their change as a patch.
    `ci` is the repository's CI on the pushed commit: each workflow with a link."""
    lines = [
        BODY_BEGIN,
        marker("implement"),
        f"Closes #{number}",
        "",
        f"Implements the plan [`{plan_path}`]({plan_url}).",
        "",
        *(
            [
                f"> [!WARNING]\n> The run {stopped}: the reviewer has not reviewed this "
                "change, and it may be unfinished.",
                "",
            ]
            if stopped
            else []
        ),
        *(report.render() if report is not None else []),
        "This draft was written by amelia's developer agent and checked by its reviewer "
        "agent; a human review decides whether it is merged.",
    ]
    if verdict == NOT_ALL_PUSHED:
        lines += [
            "",
            f"Latest automated verdict: **{verdict}**: the reviewer found nothing to change, "
            "but part of the change is not on this branch (see *Not pushed* below), so it is "
            "not approved.",
        ]
    elif verdict == CI_NOT_PASSED:
        lines += [
            "",
            f"Latest automated verdict: **{verdict}**: the reviewer found nothing to change, "
            "but the repository's CI on this commit failed or has not finished (see below), "
            "so it is not approved.",
        ]
    elif verdict:
        lines += ["", f"Latest automated verdict: **{verdict}**."]
    if flagged:
        found = ", ".join(f"`{leak.path}` ({leak.kind})" for leak in flagged)
        lines += [
            "",
            f"> [!WARNING]\n> Strings shaped like credentials are in {found}. Check that "
            "none is a real secret before merging.",
        ]
    if withheld:
        files = ", ".join(f"`{path}`" for path in withheld)
        lines += [
            "",
            f"Not committed: {files}: the agents wrote them, but their names mark them as "
            "credential files.",
        ]
    if held_back is not None:
        lines += ["", *held_back_lines(held_back)]
    if check is not None:
        lines += ["", *check_lines(check)]
    if ci is not None and (shown := ci_lines(ci)):
        lines += ["", *shown]
    return "\n".join([*lines, BODY_END]) + "\n"


def check_lines(check: CheckRun) -> list[str]:
    """`Tests: <command> — passed` (or `— failed (exit N)`), run by amelia, with the tail of
    its output collapsed."""
    tail = check.tail.rstrip() or "(no output)"
    tail_fence = code_fence(tail)
    return [
        f"Tests: {inline_code(check.command)} — {check.outcome}",
        "",
        "<details>",
        f"<summary>Last lines of the test command's output (run by amelia after round "
        f"{check.round})</summary>",
        "",
        tail_fence,
        tail,
        tail_fence,
        "",
        "</details>",
    ]


def merge_pull_body(current: str, ours: str) -> str:
    """`current` (the description as it is on GitHub) with amelia's part replaced by `ours`.

    Only the text between amelia's begin and end markers is amelia's: what people wrote
    before or after it stays as it is. A description without amelia's part gets it appended.
    """
    begin = current.find(BODY_BEGIN)
    end = current.find(BODY_END, begin + len(BODY_BEGIN)) if begin >= 0 else -1
    if begin >= 0 and end >= 0:
        after = current[end + len(BODY_END) :].removeprefix("\r\n").removeprefix("\n")
        return current[:begin] + ours + after
    if not current.strip():
        return ours
    return current.rstrip() + "\n\n" + ours


def fetch_default(repo: Repo, branch: str) -> tuple[str, str]:
    """Fetch the default branch: its name and its merge base with `branch`, checked out
    (the pull's base), deepening a shallow checkout as far as that takes."""
    default = validate_branch_name(remote_default_branch(repo))
    return default, fetch_base(repo, default, branch)


def fetch_base(repo: Repo, base: str, branch: str) -> str:
    """Fetch branch `base`: its merge base with `branch`, checked out, deepening a shallow
    checkout as far as that takes."""
    tracking = fetch_branch(repo, validate_branch_name(base))
    refspecs = [
        f"+refs/heads/{base}:{tracking}",
        f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
    ]
    return merge_base_deepening(repo, tracking, "HEAD", refspecs=refspecs)


async def commit_and_push(ctx: ModeContext, branch: str, message: str) -> None:
    """Commit what the agents did (by amelia[bot], the person who asked as co-author) and
    push `branch`: what a developer round leaves is published this way, so every link
    posted afterwards resolves."""
    await asyncio.to_thread(
        ctx.checkout.publisher.commit_agent_work,
        message,
        co_author=co_author(ctx.command.requested_by, server_url=ctx.runner.server_url),
    )
    await asyncio.to_thread(ctx.checkout.publisher.push, branch)


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
    issue = issue_of_branch(pull.head_ref, ctx.inputs.branch_prefix)
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
        await asyncio.to_thread(switch_to_branch, remote, branch)
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
    from amelia.core.types import AgentRole
    from amelia.pipeline import BudgetExceededError, StageFailedError, develop_and_review

    repo, git = ctx.checkout.path, ctx.checkout.git
    number, branch, plan_path = planned.number, planned.branch, planned.plan_path
    await ctx.stage(STAGE_BRANCH, "running")
    remote = ctx.checkout.remote()
    default_branch, base = await asyncio.to_thread(fetch_default, remote, branch)
    plan_sha = await asyncio.to_thread(head_sha, git)
    await ctx.stage(STAGE_BRANCH, "done", detail=f"{branch} with {plan_path}")

    from amelia.action.modes._develop._toolchain import prepare_toolchain

    # Before any agent: the setup (and any script it names) comes from the default branch.
    prepared = await prepare_toolchain(
        ctx,
        trusted_ref=f"refs/remotes/origin/{default_branch}",
        setup_stage=STAGE_SETUP,
        tests_stage=STAGE_TESTS,
    )

    info = await ctx.github.get_issue(number)
    existing = await ctx.github.find_open_pull(branch)
    context = ctx.run_context(make_driver=prepared.make_driver, test_command=prepared.test_command)
    state = ExecutionState(
        issue=agent_issue(info),
        plan_markdown=(repo / plan_path).read_text(encoding="utf-8"),
        plan_path=plan_path,
        base_ref=base,
        request=agent_request(ctx.command),
    )
    message = commit_title(number, info.title)
    rounds: list[str] = []
    ci = RepositoryCi(ctx, branch)

    async def publish_round(role: AgentRole, current: ExecutionState) -> ExecutionState | None:
        review = current.last_review
        if role == "reviewer" and review is not None:
            rounds.append(round_line("implement", review, current.review_iteration))
        if role == "developer":
            await commit_and_push(ctx, branch, message)
            await open_draft_for_ci(current)
            return await ci.after_push(current)
        return None

    async def open_draft_for_ci(current: ExecutionState) -> None:
        """With a token whose events start workflows, open the draft at the first push
        that holds work: the workflows on `pull_request` run only for an open pull request,
        and amelia waits for them after each push."""
        nonlocal existing
        if existing is not None or not await ci.started_by_pull_request():
            return
        if await asyncio.to_thread(head_sha, git) == plan_sha:
            return
        existing, _head = await publish_draft(current)

    async def publish_draft(
        current: ExecutionState, *, stopped: str | None = None
    ) -> tuple[PullInfo, str]:
        """Open or update the draft for `current`; the pull and the head it shows."""
        await ctx.stage(STAGE_PUBLISH, "running")
        head = await asyncio.to_thread(head_sha, git)
        review = current.last_review
        plan_url = ctx.blob_url(head, plan_path)
        publisher = ctx.checkout.publisher

        def body_for(description: str) -> str:
            report = ChangeReport.build(
                git,
                base,
                head,
                current,
                [*earlier_rounds(description), *rounds],
                notes={plan_path: "the implementation plan"},
            )
            body = pull_body(
                number,
                plan_path,
                plan_url,
                (
                    reported_verdict(review, all_pushed=publisher.all_pushed, ci=current.last_ci)
                    if review
                    else None
                ),
                flagged=tuple(ctx.checkout.publisher.flagged),
                withheld=tuple(ctx.checkout.publisher.withheld),
                check=current.last_check,
                report=report,
                stopped=stopped,
                held_back=ctx.checkout.publisher.held_back.work,
                ci=current.last_ci or ci.latest,
            )
            return ctx.redactor.redact(body)

        pull = await _open_or_update_pull(ctx, existing, branch, default_branch, message, body_for)
        changed = "no new commits" if head == plan_sha else f"pushed {head[:12]}"
        await ctx.stage(STAGE_PUBLISH, "done", detail=f"#{pull.number} ({changed})")
        return pull, head

    state = await ci.before_rounds(state)
    try:
        state = await develop_and_review(state, context, base_ref=base, after_stage=publish_round)
    except BudgetExceededError as stop:
        # The work done within the budget is pushed: the draft shows it and says why the
        # run stopped, so nothing is lost and nobody mistakes it for a reviewed change.
        pull, _head = await publish_draft(stop.state, stopped=stop.reason)
        await post_tool_errors(ctx.github, pull.number, stop.state.tool_results, ctx.redactor)
        raise  # the engine reports the stop (exit 1), on the progress comment too
    except StageFailedError as error:
        where = existing.number if existing is not None else planned.asked_on
        await post_tool_errors(ctx.github, where, error.state.tool_results, ctx.redactor)
        raise  # the engine reports the failure, on the progress comment too

    head = await asyncio.to_thread(head_sha, git)
    changed = await asyncio.to_thread(changed_paths, git, base, head=head)
    if not [path for path in changed if path != plan_path]:
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
    pull, head = await publish_draft(state)
    review = state.last_review
    all_pushed = ctx.checkout.publisher.all_pushed
    verdict = (
        reported_verdict(review, all_pushed=all_pushed, ci=state.last_ci)
        if review is not None
        else None
    )
    plan_url = ctx.blob_url(head, plan_path)
    if review is not None:
        diff_text = await asyncio.to_thread(diff, git, base, head=head)
        held = ctx.checkout.publisher.held_back.work
        await post_verdict(
            ctx.github,
            pull.number,
            review,
            diff_text,
            head,
            ctx.redactor,
            setting=ctx.inputs.review_event,
            note="\n\n".join(
                n
                for n in (verdict_note(held) if held is not None else "", ci.review_note(state))
                if n
            ),
            may_approve=held is None,
            ci_passed=ci.may_approve(state),
        )
    await post_tool_errors(ctx.github, pull.number, state.tool_results, ctx.redactor)
    links = (
        (f"Draft pull request #{pull.number}", pull.html_url),
        ("Plan", plan_url),
        (f"Branch {branch}", ctx.tree_url(branch)),
    )
    return ModeOutcome(
        outputs={
            "pr_number": str(pull.number),
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
        merged = merge_pull_body(current.body, await asyncio.to_thread(body_for, current.body))
        return await ctx.github.update_pull(existing.number, body=merged)
    body = await asyncio.to_thread(body_for, "")
    return await ctx.github.create_pull(branch, base, title, body, draft=True)


MODE = Mode(name="implement", run=implement, prepare=prepare, stages=STAGES)
