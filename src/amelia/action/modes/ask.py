"""`/amelia ask <question>`: a read-only agent answers a question in one comment.

On an issue the answerer explores the checkout as it is (the default branch). On a pull
request the head is fetched and checked out detached with files that steer agents reset
to the base's version (as for a review), and the answerer also gets the pull's diff; asked
in a review thread, it gets the thread and the file it is on, at the commit commented on.
The answer is posted as one comment where the question was asked (in the thread, as a
reply), its `path:line` references linked to the files at the commit the answerer read.
Nothing is committed or pushed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from amelia.action.agent_issue import agent_issue, agent_request
from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.action.modes.review import pull_diff
from amelia.action.pull_head import check_out_pull
from amelia.action.replies import post_where_asked
from amelia.action.verdicts import post_tool_errors
from amelia.errors import GitError
from amelia.git import head_sha, path_exists_at, run_git
from amelia.github.comments import link_references, render_answer
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["MODE", "answer_body", "run", "thread_context"]

EXCERPT_LINES = 60
"""Lines of the file shown on each side of the line a thread is on."""


def answer_body(ctx: ModeContext, answer: str, repo: Path, commit: str) -> str:
    """The comment: the answer with its `path:line` references linked at `commit`."""

    def url_of(path: str, start: int, end: int | None) -> str | None:
        if path.startswith(("/", "../")) or not path_exists_at(repo, commit, path):
            return None
        lines = f"#L{start}-L{end}" if end else f"#L{start}"
        return ctx.blob_url(commit, path) + lines

    linked = link_references(answer, url_of)
    return render_answer(linked, ctx.command.requested_by, ctx.redactor)


def thread_context(ctx: ModeContext, repo: Path, pull_number: int, head: str) -> str | None:
    """The review thread the question was asked in (sanitized, oldest comment first) and
    the file it is on, numbered, around its line, at the commit commented on (else at
    `head`); None when the command was not given in a thread."""
    root = ctx.command.reply_to
    if root is None:
        return None
    thread = [
        comment
        for comment in ctx.github.list_review_comments(pull_number)
        if root in (comment.id, comment.in_reply_to_id)
    ]
    if not thread:
        return None
    first = thread[0]
    line = first.line or first.original_line
    lines = [f"Thread on `{first.path}`" + (f" line {line}" if line else "") + ":"]
    if first.diff_hunk:
        lines += ["Diff hunk:", first.diff_hunk]
    lines += [f"@{c.author}: {sanitize_untrusted(c.body)}" for c in thread]
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


async def run(ctx: ModeContext) -> ModeOutcome:
    from amelia.core.state import ExecutionState
    from amelia.pipeline import RunContext, StageFailedError, run_answer

    number = ctx.command.number
    if number is None:
        return ModeOutcome(conclusion="failure", failure_reason="ask needs an issue or pull")
    repo = ctx.workspace.path
    info = await asyncio.to_thread(ctx.github.get_issue, number)
    diff_text: str | None = None
    if info.is_pull_request:
        pull = await asyncio.to_thread(ctx.github.get_pull, number)
        with ctx.workspace.authenticated():
            checked = await asyncio.to_thread(check_out_pull, repo, pull)
        diff_text = await pull_diff(ctx, number, checked)
        issue = agent_issue(pull)
        commit = checked.head_sha  # links name the pull's head, a commit GitHub has
        context_text = await asyncio.to_thread(thread_context, ctx, repo, number, commit)
    else:
        issue = agent_issue(info)
        commit = await asyncio.to_thread(head_sha, repo)
        context_text = None

    context = RunContext(
        repo_dir=repo,
        make_driver=ctx.make_driver,
        profile=ctx.profile,
        sinks=ctx.sinks,
        agent_session=ctx.workspace.agent_session,
    )
    start = ExecutionState(issue=issue, request=agent_request(ctx.command), context=context_text)
    try:
        state = await run_answer(start, context, diff_text=diff_text)
    except StageFailedError as error:
        await post_tool_errors(ctx.github, number, error.state.tool_results, ctx.redactor)
        raise
    body = answer_body(ctx, state.answer or "", repo, commit)
    posted = await post_where_asked(ctx.github, ctx.command, body)
    await post_tool_errors(ctx.github, number, state.tool_results, ctx.redactor)
    links = (("Answer", posted),) if posted else ()
    outputs = {"pr_number": str(number)} if info.is_pull_request else {}
    return ModeOutcome(outputs=outputs, links=links, state=state)


MODE = Mode(name="ask", run=run)
