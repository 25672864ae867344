"""Posting what a run found on a pull request: the reviewer's verdict and failed tool calls.

The verdict is one pull-request review (inline comments only on lines inside the diff's
hunks, the rest in its body); every error-flagged tool result of the run goes into one
comment. Both pass through the run's `Redactor` before they leave the process.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

from amelia.config import ReviewEventSetting
from amelia.core.ci import CiReport
from amelia.core.state import ReviewResult, ReviewScope, ToolResult
from amelia.github.comments import build_review, render_tool_errors
from amelia.github.models import ReviewInfo
from amelia.github.options import ReviewEvent
from amelia.github.port import GitHubPort
from amelia.redaction import Redactor

__all__ = [
    "APPROVAL_WITHHELD_NOTE",
    "CI_NOT_PASSED",
    "NOT_ALL_PUSHED",
    "choose_review_event",
    "failed_tools_posted",
    "post_tool_errors",
    "post_verdict",
    "reported_verdict",
    "withhold_approval",
]

NOT_ALL_PUSHED = "not_all_pushed"
"""The verdict amelia reports (step output, description) for a change the reviewer approved
but that is not all on the branch: files were held back from the push, or the push failed.
Never `approved`, so a workflow that merges on `verdict == 'approved'` leaves it alone."""


CI_NOT_PASSED = "ci_not_passed"
"""The verdict amelia reports (step output, description) for a change the reviewer approved
but whose repository CI on the pushed commit failed or did not finish (amelia's wait ran
out, or `ci: {wait: false}`). Never `approved`, like `NOT_ALL_PUSHED`."""


def reported_verdict(result: ReviewResult, *, all_pushed: bool, ci: CiReport | None = None) -> str:
    """The verdict for the step's output and the description: the reviewer's, except that
    an approved change not all on the branch is `NOT_ALL_PUSHED`, and one whose CI `ci`
    ran and did not pass is `CI_NOT_PASSED`."""
    if result.approved and not all_pushed:
        return NOT_ALL_PUSHED
    if result.approved and ci is not None and ci.blocks_approval:
        return CI_NOT_PASSED
    return result.verdict


def choose_review_event(
    result: ReviewResult, setting: ReviewEventSetting, *, may_approve: bool = True
) -> ReviewEvent:
    """The event a review is posted with.

    COMMENT always comments (a GITHUB_TOKEN may not approve); APPROVE approves an approved
    change and comments otherwise; REQUEST_CHANGES requests changes when the verdict asks
    for them and comments otherwise; AUTO approves or requests changes by the verdict.
    Without `may_approve` (parts of the change could not be pushed) an approved change is
    commented on, never approved.
    """
    if setting == "AUTO":
        if not result.approved:
            return "REQUEST_CHANGES"
        return "APPROVE" if may_approve else "COMMENT"
    if setting == "APPROVE" and result.approved and may_approve:
        return "APPROVE"
    if setting == "REQUEST_CHANGES" and not result.approved:
        return "REQUEST_CHANGES"
    return "COMMENT"


def withhold_approval(setting: ReviewEventSetting) -> ReviewEventSetting:
    """The setting for a pull request whose author lacks write access: never approve.

    Its title, description and code are the author's words; a bot approval of them would
    let an outsider steer the repository's review state.
    """
    if setting == "APPROVE":
        return "COMMENT"
    if setting == "AUTO":
        return "REQUEST_CHANGES"
    return setting


APPROVAL_WITHHELD_NOTE = (
    "_amelia does not approve pull requests whose author has no write access; "
    "a maintainer's review decides._"
)


async def post_verdict(
    github: GitHubPort,
    pull_number: int,
    result: ReviewResult,
    diff_text: str,
    commit_sha: str,
    redactor: Redactor,
    *,
    setting: ReviewEventSetting = "COMMENT",
    note: str = "",
    scope: ReviewScope | None = None,
    may_approve: bool = True,
    ci_passed: bool = True,
) -> ReviewInfo:
    """Post `result` as one review of `commit_sha`; `note` is appended to the body, which
    names the range reviewed when `scope` is given. Without `may_approve` (parts of the
    change are not on the branch) or `ci_passed` (the repository's CI on the commit failed
    or did not finish) it never approves (see `choose_review_event`), and its headline
    does not call the change approved but says which."""
    body, inline = build_review(
        result,
        diff_text,
        commit_sha,
        redactor=redactor,
        scope=scope,
        all_pushed=may_approve,
        ci_passed=ci_passed,
    )
    if note:
        body += "\n" + redactor.redact(note.strip()) + "\n"
    return await github.create_review(
        pull_number,
        body,
        choose_review_event(result, setting, may_approve=may_approve and ci_passed),
        comments=inline,
        commit_id=commit_sha or None,
    )


async def post_tool_errors(
    github: GitHubPort, number: int, results: Sequence[ToolResult], redactor: Redactor
) -> bool:
    """One comment on issue or pull `number` listing every error-flagged tool result;
    nothing is posted (False) when no tool call failed."""
    body = render_tool_errors(results, redactor)
    if body is None:
        return False
    await github.create_comment(number, body)
    return True


@asynccontextmanager
async def failed_tools_posted(
    github: GitHubPort, number: int, redactor: Redactor
) -> AsyncIterator[None]:
    """Around a pipeline stage: when it fails (`StageFailedError`), its failed tool calls are
    posted on issue or pull `number` before the failure goes on to the engine."""
    from amelia.pipeline import StageFailedError

    try:
        yield
    except StageFailedError as error:
        await post_tool_errors(github, number, error.state.tool_results, redactor)
        raise
