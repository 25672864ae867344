"""The develop → publish → review flow fix and implement share: developer → reviewer rounds
on a branch of this repository, the agents' work committed and pushed after every
developer round, and the last verdict posted as a review of the pull request."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from amelia.action.checkout import verdict_note
from amelia.action.modes._commits import co_author
from amelia.action.modes._develop._pull_body import pull_body
from amelia.action.modes._develop._pull_description import ChangeReport
from amelia.action.modes._develop._repository_ci import STAGE_CI, RepositoryCi
from amelia.action.modes._develop._toolchain import PreparedToolchain, prepare_toolchain
from amelia.action.modes._verdicts import post_tool_errors, post_verdict, reported_verdict
from amelia.action.modes.base import ModeContext
from amelia.core.state import ExecutionState, ReviewResult
from amelia.core.types import AgentRole, Profile
from amelia.git import (
    ChangedFile,
    Repo,
    diff,
    fetch_branch,
    merge_base_deepening,
    validate_branch_name,
)

if TYPE_CHECKING:
    from amelia.core.ci import CiReport
    from amelia.pipeline import BudgetExceededError

__all__ = [
    "ROUND_STAGES",
    "STAGE_CI",
    "STAGE_SETUP",
    "STAGE_TESTS",
    "commit_and_push",
    "describe",
    "develop",
    "fetch_base",
    "issue_of_branch",
    "post_review",
    "set_up",
]

STAGE_SETUP = "setup"
STAGE_TESTS = "tests"
ROUND_STAGES = (STAGE_SETUP, "developer", STAGE_CI, STAGE_TESTS, "reviewer")
"""The progress stages of the flow: the setup, then the developer, the repository's CI on
its pushed commit, the tests and the reviewer (the pipeline's events update the developer,
the tests and the reviewer)."""


def issue_of_branch(branch: str, prefix: str) -> int | None:
    """The issue number of a plan branch `<prefix>issue-<n>`, None for other branches."""
    found = re.fullmatch(re.escape(prefix) + r"issue-(\d+)", branch)
    return int(found.group(1)) if found else None


def fetch_base(repo: Repo, base: str, branch: str) -> str:
    """Fetch branch `base`: its merge base with `branch`, checked out, deepening a shallow
    checkout as far as that takes."""
    tracking = fetch_branch(repo, validate_branch_name(base))
    refspecs = [
        f"+refs/heads/{base}:{tracking}",
        f"+refs/heads/{branch}:refs/remotes/origin/{branch}",
    ]
    return merge_base_deepening(repo, tracking, "HEAD", refspecs=refspecs)


async def commit_and_push(ctx: ModeContext, branch: str, message: str) -> str:
    """Commit what the agents did (by amelia[bot], the person who asked as co-author) and
    push `branch`: what a developer round leaves is published this way, so every link
    posted afterwards resolves. Returns the branch's head after the push."""
    await asyncio.to_thread(
        ctx.checkout.publisher.commit_agent_work,
        message,
        co_author=co_author(ctx.command.requested_by, server_url=ctx.runner.server_url),
    )
    return await asyncio.to_thread(ctx.checkout.publisher.push, branch)


async def set_up(ctx: ModeContext, trusted_branch: str) -> PreparedToolchain:
    """Before any agent: the project's setup and test command (`prepare_toolchain`), any
    script the setup names read from `trusted_branch` as fetched from origin."""
    return await prepare_toolchain(
        ctx,
        trusted_ref=f"refs/remotes/origin/{trusted_branch}",
        setup_stage=STAGE_SETUP,
        tests_stage=STAGE_TESTS,
    )


async def develop(
    ctx: ModeContext,
    state: ExecutionState,
    toolchain: PreparedToolchain,
    *,
    branch: str,
    message: str,
    base: str,
    failures_on: int | Callable[[], int],
    ci: RepositoryCi,
    after_push: Callable[[ExecutionState, str], Awaitable[None]] | None = None,
    profile: Profile | None = None,
    on_review: Callable[[ReviewResult, int], None] | None = None,
    on_budget: Callable[[BudgetExceededError], Awaitable[None]] | None = None,
) -> ExecutionState:
    """Developer → reviewer rounds on `branch` (reviews cover the change since `base`),
    the drivers and the test command from `toolchain`; after every developer round the
    agents' work is committed with `message` and pushed, `after_push(state, head)` runs
    with the head pushed, and the repository's CI runs on it (`ci`: a failure found goes
    to the next round and the reviewer); `on_review(review, round)` sees every verdict. A
    stage that fails has its failed tool calls posted on `failures_on` (a number, or what
    the callable gives when it fails) and is raised for the engine to report; when the run
    reached its budget and there is `on_budget`, that publishes what was done instead, and
    the stop is raised the same."""
    from amelia.pipeline import BudgetExceededError, StageFailedError, develop_and_review

    pipeline = ctx.run_context(
        make_driver=toolchain.make_driver, profile=profile, test_command=toolchain.test_command
    )

    async def publish_round(role: AgentRole, current: ExecutionState) -> ExecutionState | None:
        review = current.last_review
        if role == "reviewer" and review is not None and on_review is not None:
            on_review(review, current.review_iteration)
        if role == "developer":
            # The head the push left, known until the next agent runs: nobody asks again.
            head = await commit_and_push(ctx, branch, message)
            if after_push is not None:
                await after_push(current, head)
            return await ci.after_push(current, head=head)
        return None

    def where() -> int:
        return failures_on() if callable(failures_on) else failures_on

    state = await ci.before_rounds(state)
    try:
        return await develop_and_review(state, pipeline, base_ref=base, after_stage=publish_round)
    except BudgetExceededError as stop:
        if on_budget is None:
            await post_tool_errors(ctx.github, where(), stop.state.tool_results, ctx.redactor)
        else:
            await on_budget(stop)
        raise  # the engine reports the stop (exit 1), on the progress comment too
    except StageFailedError as error:
        await post_tool_errors(ctx.github, where(), error.state.tool_results, ctx.redactor)
        raise  # the engine reports the failure, on the progress comment too


async def post_review(
    ctx: ModeContext,
    pull_number: int,
    state: ExecutionState,
    *,
    base: str,
    head: str,
    ci: RepositoryCi,
    notes: tuple[str, ...] = (),
) -> None:
    """Post the last verdict of `state` (if any) as the review of the change from `base` to
    `head`, with `notes`. Files GitHub would refuse in a push keep it from approving, and
    are named in the review; a change whose repository CI (`ci`) failed or did not finish
    is not approved either, and the review's headline says so, with that CI's outcome."""
    review = state.last_review
    if review is None:
        return
    diff_text = await asyncio.to_thread(diff, ctx.checkout.git, base, head=head)
    held = ctx.checkout.publisher.held_back.work
    await post_verdict(
        ctx.github,
        pull_number,
        review,
        diff_text,
        head,
        ctx.redactor,
        setting=ctx.inputs.review_event,
        note="\n\n".join(
            [
                *notes,
                *([verdict_note(held)] if held is not None else []),
                *([ci_note] if (ci_note := ci.review_note(state)) else []),
            ]
        ),
        may_approve=held is None,
        ci_passed=ci.may_approve(state),
    )


def describe(
    ctx: ModeContext,
    number: int,
    plan_path: str,
    state: ExecutionState,
    *,
    base: str,
    head: str,
    rounds: list[str],
    stopped: str | None = None,
    ci: CiReport | None = None,
    files: Sequence[ChangedFile] | None = None,
) -> str:
    """amelia's part of the description of the draft for issue `number` (redacted): the
    change from `base` to `head` by file, the review `rounds`, the plan, the last verdict
    (`not_all_pushed` for an approved change not all on the branch, `ci_not_passed` for one
    whose CI failed or did not finish) and check of `state`,
    the repository's CI (`ci`), and what the publisher flagged, withheld or held back.
    `files`: the change's files as the caller has just read them (None: read here)."""
    git, publisher = ctx.checkout.git, ctx.checkout.publisher
    report = ChangeReport.build(
        git, base, head, state, rounds, notes={plan_path: "the implementation plan"}, changed=files
    )
    review = state.last_review
    body = pull_body(
        number,
        plan_path,
        ctx.blob_url(head, plan_path),
        (
            reported_verdict(review, all_pushed=publisher.all_pushed, ci=state.last_ci)
            if review
            else None
        ),
        flagged=tuple(publisher.flagged),
        withheld=tuple(publisher.withheld),
        check=state.last_check,
        report=report,
        stopped=stopped,
        held_back=publisher.held_back.work,
        ci=ci,
    )
    return ctx.redactor.redact(body)
