"""The GitHub port's adapter over PyGithub: real requests, async at its surface.

PyGithub blocks, so every operation runs in a worker thread (`_in_thread`, the one place
that hands work to a thread); modes just `await` it. Each request is retried on 5xx, 429,
secondary rate limits, exhausted primary rate limits, connection errors and timeouts,
honouring `Retry-After` and `X-RateLimit-Reset`, within a bounded number of attempts and a
bounded total wait (`amelia.github.retrying`); anything else becomes a typed `GitHubError`
with a one-line message. Creating a pull request, a review or a reply is done once even
when an attempt's answer is lost. Results are plain models (`amelia.github.models`, also
importable from here).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import ParamSpec, TypeVar

from amelia.github._pygithub import PyGithubCalls
from amelia.github.models import (
    CommentInfo,
    InlineComment,
    IssueInfo,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
    ReviewThreadInfo,
)
from amelia.github.options import DEFAULT_API_URL, DEFAULT_TIMEOUT, RetryPolicy, ReviewEvent
from amelia.github.port import GitHubPort
from amelia.github.retrying import RetryRecord, is_retryable, server_requested_delay
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    WorkflowInfo,
    WorkflowRunInfo,
)

__all__ = [
    "CommentInfo",
    "GitHubClient",
    "InlineComment",
    "IssueInfo",
    "PullInfo",
    "RetryRecord",
    "ReviewCommentInfo",
    "ReviewInfo",
    "ReviewThreadInfo",
    "is_retryable",
    "server_requested_delay",
]

P = ParamSpec("P")
T = TypeVar("T")


class GitHubClient(GitHubPort):
    """One repository's GitHub API, with bounded retries. Count retries via `retry_log`."""

    def __init__(
        self,
        token: str,
        repo: str,
        *,
        base_url: str = DEFAULT_API_URL,
        policy: RetryPolicy | None = None,
        timeout: int = DEFAULT_TIMEOUT,
        per_page: int = 100,
        throttle: bool = True,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`throttle=False` drops PyGithub's pause between writes too (tests, local servers).
        `sleep` waits between attempts, in the worker thread."""
        self._calls = PyGithubCalls(
            token,
            repo,
            base_url=base_url,
            policy=policy,
            timeout=timeout,
            per_page=per_page,
            throttle=throttle,
            sleep=sleep,
            clock=clock,
        )
        self.full_name = repo

    @property
    def policy(self) -> RetryPolicy:
        return self._calls.retrier.policy

    @property
    def retry_log(self) -> list[RetryRecord]:
        return self._calls.retrier.retry_log

    @property
    def retry_count(self) -> int:
        return len(self.retry_log)

    def close(self) -> None:
        self._calls.close()

    async def _in_thread(self, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
        return await asyncio.to_thread(call, *args, **kwargs)

    # reads ---------------------------------------------------------------------------------

    async def default_branch(self) -> str:
        return await self._in_thread(self._calls.default_branch)

    async def get_file(self, path: str, ref: str) -> bytes | None:
        return await self._in_thread(self._calls.get_file, path, ref)

    async def token_facts(self) -> TokenFacts:
        return await self._in_thread(self._calls.token_facts)

    async def get_permission(self, user: str) -> str:
        return await self._in_thread(self._calls.get_permission, user)

    async def get_issue(self, number: int) -> IssueInfo:
        return await self._in_thread(self._calls.get_issue, number)

    async def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        return await self._in_thread(self._calls.find_comment_with_marker, issue_number, marker)

    async def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        return await self._in_thread(self._calls.list_labelled_issues, label, state=state)

    async def get_pull(self, number: int) -> PullInfo:
        return await self._in_thread(self._calls.get_pull, number)

    async def find_open_pull(self, head: str) -> PullInfo | None:
        return await self._in_thread(self._calls.find_open_pull, head)

    async def get_pull_diff(self, number: int) -> str | None:
        return await self._in_thread(self._calls.get_pull_diff, number)

    async def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        return await self._in_thread(self._calls.list_reviews, pull_number)

    async def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        return await self._in_thread(self._calls.list_review_comments, pull_number)

    async def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        return await self._in_thread(self._calls.list_review_threads, pull_number)

    async def list_workflows(self) -> list[WorkflowInfo]:
        return await self._in_thread(self._calls.list_workflows)

    async def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        return await self._in_thread(
            self._calls.list_workflow_runs, head_sha, event=event, etag=etag
        )

    async def list_jobs(self, run_id: int) -> list[JobInfo]:
        return await self._in_thread(self._calls.list_jobs, run_id)

    async def get_job_log(self, job_id: int) -> str | None:
        return await self._in_thread(self._calls.get_job_log, job_id)

    async def list_check_suites(
        self, ref: str, *, etag: str | None = None
    ) -> Polled[CheckSuiteInfo]:
        return await self._in_thread(self._calls.list_check_suites, ref, etag=etag)

    async def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        return await self._in_thread(self._calls.list_check_runs, ref)

    # writes --------------------------------------------------------------------------------

    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        return await self._in_thread(self._calls.create_comment, issue_number, body)

    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        return await self._in_thread(self._calls.edit_comment, comment_id, body)

    async def delete_comment(self, comment_id: int) -> None:
        await self._in_thread(self._calls.delete_comment, comment_id)

    async def create_pull(
        self, head: str, base: str, title: str, body: str, *, draft: bool
    ) -> PullInfo:
        return await self._in_thread(self._calls.create_pull, head, base, title, body, draft=draft)

    async def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        return await self._in_thread(self._calls.update_pull, number, title=title, body=body)

    async def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        return await self._in_thread(
            self._calls.create_review,
            pull_number,
            body,
            event,
            comments=comments,
            commit_id=commit_id,
        )

    async def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        return await self._in_thread(
            self._calls.reply_to_review_comment, pull_number, comment_id, body
        )

    async def resolve_review_thread(self, thread_id: str) -> bool:
        return await self._in_thread(self._calls.resolve_review_thread, thread_id)

    async def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        await self._in_thread(self._calls.dispatch_workflow, workflow_id, ref)
