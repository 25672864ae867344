"""The project's test command, run by amelia itself after every developer round.

Not the model: amelia starts the command in the worktree with the environment the agents'
tools get (secrets removed), as the agents' unprivileged user when they have one (it runs
code the agents wrote), bounded in time, and keeps its exit code and the tail of its
output as `ExecutionState.last_check`. The reviewer gets it as a fact, the developer's next
round gets a failure to fix, and a failing command keeps the verdict from `approved`
(`enforce_check`): it becomes `changes_requested` with the failure as its first finding.

Files the command leaves in the worktree that git would commit (an untracked report, a
coverage file) are removed again, so they never become part of the agents' work.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil

from loguru import logger

from amelia.core.state import CheckRun, ExecutionState, ReviewComment, ReviewResult
from amelia.core.types import StreamEventType
from amelia.errors import GitError
from amelia.git import Git, Repo, run_git_paths
from amelia.pipeline.context import RunContext
from amelia.pipeline.project_tests import TestCommand
from amelia.toolchain import run_shell

__all__ = ["CHECK_AGENT", "TestCommand", "enforce_check", "run_check"]

CHECK_AGENT = "tests"
"""The name the test command's events carry (the progress comment shows it as a stage)."""


def _untracked(repo: Repo) -> set[str]:
    try:
        return set(run_git_paths(["ls-files", "-z", "--others", "--exclude-standard"], repo))
    except GitError as error:
        logger.warning("could not list untracked files: {}", error)
        return set()


def _remove_new(git: Git, before: set[str]) -> list[str]:
    """Delete the untracked, not ignored files that appeared since `before`, and the
    folders that held only them."""
    created = sorted(_untracked(git) - before)
    repo = git.path
    for relative in created:
        path = repo / relative
        with contextlib.suppress(FileNotFoundError):
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            else:
                path.unlink()
        for parent in path.parents:
            if parent == repo or repo not in parent.parents:
                break
            try:
                parent.rmdir()  # only when empty
            except OSError:
                break
    return created


async def run_check(state: ExecutionState, context: RunContext) -> ExecutionState:
    """Run the context's test command once; the result is `state.last_check`. Does nothing
    without a test command."""
    test = context.test_command
    if test is None:
        return state
    round_number = (state.last_check.round + 1) if state.last_check is not None else 1
    await context.emit(context.event(StreamEventType.STAGE_STARTED, CHECK_AGENT, test.command))
    repo, git = context.repo_dir, context.repo_git
    before = await asyncio.to_thread(_untracked, git)
    try:
        # It runs the developer's code: what surrounds the developer surrounds it too (what
        # it leaves running is stopped, the files it may not change are put back).
        async with context.session("developer"):
            ran = await run_shell(
                test.argv(),
                cwd=repo,
                env=test.start_environment(),
                timeout_seconds=test.timeout_seconds,
            )
        check = CheckRun(
            command=test.command,
            exit_code=ran.exit_code,
            timed_out=ran.timed_out,
            timeout_seconds=test.timeout_seconds,
            tail=ran.tail,
            duration_seconds=ran.duration_seconds,
            round=round_number,
        )
    except OSError as error:
        tail = f"could not start: {error}"
        check = CheckRun(command=test.command, exit_code=127, tail=tail, round=round_number)
    removed = await asyncio.to_thread(_remove_new, git, before)
    if removed:
        logger.info("removed what the test command left in the worktree: {}", ", ".join(removed))
    done = f"`{test.command}` {check.outcome}"
    kind = StreamEventType.STAGE_COMPLETED
    await context.emit(context.event(kind, CHECK_AGENT, done, error=not check.passed))
    return state.evolve(last_check=check)


def enforce_check(state: ExecutionState, *, origin: str = "test_command") -> ExecutionState:
    """A verdict never approves a change whose test command fails: `approved` becomes
    `changes_requested`, and the failure is the first finding of any verdict."""
    check, review = state.last_check, state.last_review
    if check is None or review is None or check.passed:
        return state
    finding = ReviewComment(
        path=origin,
        severity="major",
        body=f"The test command `{check.command}` {check.outcome} after round {check.round}.",
    )
    if any(comment.body == finding.body for comment in review.comments):
        return state
    severity = review.severity if review.severity in ("major", "critical") else "major"
    summary = review.summary
    if review.approved:
        summary = f"The test command fails, so this cannot be approved yet. {summary}"
    enforced = ReviewResult(
        verdict="changes_requested",
        severity=severity,
        summary=summary,
        comments=(finding, *review.comments),
    )
    return state.evolve(last_review=enforced)
