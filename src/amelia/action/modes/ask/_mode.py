"""`/amelia ask <question>`: a read-only agent answers a question in one comment.

On an issue the answerer explores the checkout as it is (the default branch). On a pull
request the head is fetched as for a review (`amelia.action.modes._pull_head.fetched_head`):
checked out detached with files that steer agents reset to the base's version, or, for a
fork's pull request, kept as data in a directory of its own and read with file tools only
(no shell); the answerer also gets the pull's diff; asked in a review thread, it gets the
thread and the file it is on, at the commit commented on. The answer is posted as one
comment where the question was asked (in the thread, as a reply), its `path:line`
references linked to the files at the commit the answerer read. Nothing is committed or
pushed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from contextlib import AsyncExitStack

from amelia.action.modes._agent_issue import agent_issue, agent_request
from amelia.action.modes._pull_head import fetched_head, head_run_context
from amelia.action.modes._pull_head._pull_head import PullHead
from amelia.action.modes._replies import post_where_asked
from amelia.action.modes._steering import is_steering_path
from amelia.action.modes._verdicts import failed_tools_posted, post_tool_errors
from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.errors import GitError
from amelia.git import Repo, diff, head_sha, path_exists_at, run_git
from amelia.github.comments import link_references, render_answer
from amelia.github.models import ReviewCommentInfo
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["MODE", "answer_body", "contained_diff", "run", "thread_context"]

EXCERPT_LINES = 60
"""Lines of the file shown on each side of the line a thread is on."""


def answer_body(ctx: ModeContext, answer: str, repo: Repo, commit: str) -> str:
    """The comment: the answer with its `path:line` references linked at `commit`."""

    def url_of(path: str, start: int, end: int | None) -> str | None:
        if path.startswith(("/", "../")) or not path_exists_at(repo, commit, path):
            return None
        lines = f"#L{start}-L{end}" if end else f"#L{start}"
        return ctx.blob_url(commit, path) + lines

    linked = link_references(answer, url_of)
    return render_answer(linked, ctx.command.requested_by, ctx.redactor)


def contained_diff(checked: PullHead) -> str:
    """The pull's change as the answerer may read it: from the merge base to the head as
    fetched, with the files that steer agents at the base's version (the local commit that
    reset them), so a head's `CLAUDE.md` reaches the answerer neither as a file nor as diff
    text. GitHub's own diff would carry it."""
    return diff(checked.git, checked.merge_base)


def thread_context(
    ctx: ModeContext, repo: Repo, comments: Sequence[ReviewCommentInfo], head: str
) -> str | None:
    """The review thread the question was asked in (sanitized, oldest comment first; of
    the pull's review `comments`) and the file it is on, numbered, around its line, at the
    commit commented on (else at `head`); None when the command was not given in a thread."""
    root = ctx.command.reply_to
    if root is None:
        return None
    thread = [comment for comment in comments if root in (comment.id, comment.in_reply_to_id)]
    if not thread:
        return None
    first = thread[0]
    line = first.line or first.original_line
    lines = [f"Thread on `{first.path}`" + (f" line {line}" if line else "") + ":"]
    steering = is_steering_path(first.path)
    if first.diff_hunk and not steering:
        lines += ["Diff hunk:", first.diff_hunk]
    lines += [f"@{c.author}: {sanitize_untrusted(c.body)}" for c in thread]
    if steering:
        # The head's version of a file that steers agents is never shown to one.
        lines += ["", f"`{first.path}` steers agents: its text at the head is not shown."]
        return "\n".join(lines)
    for commit in dict.fromkeys(c for c in (first.commit_id, head) if c):
        try:
            text = run_git(["show", f"{commit}:{first.path}"], repo)
        except GitError:
            continue
        numbered = text.splitlines()
        middle = (line or 1) - 1
        start = max(0, middle - EXCERPT_LINES)
        shown = numbered[start : middle + EXCERPT_LINES + 1]
        lines += ["", f"`{first.path}` at {commit[:12]}, lines {start + 1}-{start + len(shown)}:"]
        lines += [f"{start + index + 1:>6}  {row}" for index, row in enumerate(shown)]
        break
    return "\n".join(lines)


async def run(ctx: ModeContext, _: None) -> ModeOutcome:
    number = ctx.command.number
    if number is None:
        return ModeOutcome(conclusion="failure", failure_reason="ask needs an issue or pull")
    # A head kept as data lives in a directory removed once the answer is posted.
    async with AsyncExitStack() as stack:
        outcome = await _answer(ctx, number, stack)
    return outcome


async def _answer(ctx: ModeContext, number: int, stack: AsyncExitStack) -> ModeOutcome:
    from amelia.core.state import ExecutionState
    from amelia.pipeline import run_answer

    git = ctx.checkout.git
    pipeline = ctx.run_context(preexisting=False)
    info = await ctx.github.get_issue(number)
    diff_text: str | None = None
    if info.is_pull_request:
        pull = await ctx.github.get_pull(number)
        checked = await stack.enter_async_context(fetched_head(ctx, pull))
        git = checked.git
        pipeline = head_run_context(ctx, checked, preexisting=False)
        diff_text = await asyncio.to_thread(contained_diff, checked)
        issue = agent_issue(pull)
        commit = checked.head_sha  # links name the pull's head, a commit GitHub has
        comments = (
            await ctx.github.list_review_comments(number)
            if ctx.command.reply_to is not None
            else []
        )
        context_text = await asyncio.to_thread(thread_context, ctx, git, comments, commit)
    else:
        issue = agent_issue(info)
        commit = await asyncio.to_thread(head_sha, git)
        context_text = None

    start = ExecutionState(issue=issue, request=agent_request(ctx.command), context=context_text)
    async with failed_tools_posted(ctx.github, number, ctx.redactor):
        state = await run_answer(start, pipeline, diff_text=diff_text)
    body = answer_body(ctx, state.answer or "", git, commit)
    posted = await post_where_asked(ctx.github, ctx.command, body)
    await post_tool_errors(ctx.github, number, state.tool_results, ctx.redactor)
    links = (("Answer", posted),) if posted else ()
    outputs = {"pr_number": str(number)} if info.is_pull_request else {}
    return ModeOutcome(outputs=outputs, links=links, state=state)


MODE = Mode(name="ask", run=run)
