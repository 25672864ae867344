"""The GitHub port: every GitHub operation the Action uses, as an async interface.

Modes hold a `GitHubPort` and never know which GitHub answers, as an httpx client never
knows its transport. Three implementations keep the same promises:

- `amelia.github.client.GitHubClient`, the adapter over PyGithub: real requests, bounded
  retries, typed errors;
- `amelia.github.dry_run.DryRunGitHub`, built from any `GitHubReads`: reads go through,
  every write is recorded instead of made;
- `amelia.testing.github.InMemoryGitHub`, GitHub's state in memory, with GitHub's own
  validation, for tests that run a mode in-process.

Every method is a coroutine, takes and returns plain models (`amelia.github.models`), and
raises only `amelia.errors.GitHubError` and its subclasses. `WRITE_OPERATIONS` names what
changes anything on GitHub: a new abstract method in `GitHubWrites` leaves every
implementation that does not define it uninstantiable, the dry run first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

from amelia.github.models import (
    CommentInfo,
    InlineComment,
    IssueInfo,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
    ReviewThreadInfo,
)
from amelia.github.options import ReviewEvent
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    WorkflowInfo,
    WorkflowRunInfo,
)

__all__ = ["READ_OPERATIONS", "WRITE_OPERATIONS", "GitHubPort", "GitHubReads", "GitHubWrites"]


class GitHubReads(ABC):
    """What the Action reads of one repository on GitHub."""

    @abstractmethod
    async def default_branch(self) -> str:
        """The repository's default branch."""

    @abstractmethod
    async def get_file(self, path: str, ref: str) -> bytes | None:
        """The bytes of the file `path` at `ref` (a branch, tag or commit); None when there
        is no such file (a folder counts as none)."""

    @abstractmethod
    async def token_facts(self) -> TokenFacts:
        """Who the token acts as, or its OAuth scopes when GitHub lists them."""

    @abstractmethod
    async def get_permission(self, user: str) -> str:
        """The user's role: admin, maintain, write, triage, read or none."""

    @abstractmethod
    async def get_issue(self, number: int) -> IssueInfo:
        """Issue (or pull request, as an issue) `number`."""

    @abstractmethod
    async def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        """The oldest comment on the issue or pull whose body contains `marker`."""

    @abstractmethod
    async def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        """Issues (not pulls) carrying `label`, oldest first."""

    @abstractmethod
    async def get_pull(self, number: int) -> PullInfo:
        """Pull request `number`."""

    @abstractmethod
    async def find_open_pull(self, head: str) -> PullInfo | None:
        """The open pull whose head is branch `head` of this repository, if any."""

    @abstractmethod
    async def get_pull_diff(self, number: int) -> str | None:
        """The pull's unified diff; None when GitHub will not make it (too large)."""

    @abstractmethod
    async def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        """The pull's reviews, oldest first."""

    @abstractmethod
    async def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        """Every review comment of the pull (thread starts and replies), oldest first."""

    @abstractmethod
    async def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        """The pull's review threads, with whether each is resolved."""

    @abstractmethod
    async def list_workflows(self) -> list[WorkflowInfo]:
        """The repository's workflows (GitHub Actions)."""

    @abstractmethod
    async def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        """The workflow runs of commit `head_sha` (of `event` only, when given), newest
        first; with `etag`, a conditional read (`items` None: nothing changed)."""

    @abstractmethod
    async def list_jobs(self, run_id: int) -> list[JobInfo]:
        """The jobs of the latest attempt of run `run_id`, with their steps."""

    @abstractmethod
    async def get_job_log(self, job_id: int) -> str | None:
        """The plain-text log of job `job_id`; None when GitHub no longer has it."""

    @abstractmethod
    async def list_check_suites(
        self, ref: str, *, etag: str | None = None
    ) -> Polled[CheckSuiteInfo]:
        """The check suites of commit `ref`; with `etag`, a conditional read."""

    @abstractmethod
    async def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        """The latest check runs of commit `ref`."""


class GitHubWrites(ABC):
    """What the Action changes on GitHub: comments, pull requests, reviews, threads, and the
    workflow runs it starts."""

    @abstractmethod
    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        """A new comment on issue or pull `issue_number`."""

    @abstractmethod
    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        """Comment `comment_id` with `body` instead of its text."""

    @abstractmethod
    async def delete_comment(self, comment_id: int) -> None:
        """Delete comment `comment_id`."""

    @abstractmethod
    async def create_pull(
        self, head: str, base: str, title: str, body: str, *, draft: bool
    ) -> PullInfo:
        """A pull request from branch `head` into `base`, made once even when retried."""

    @abstractmethod
    async def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        """Pull `number` with the title or body given (None: unchanged)."""

    @abstractmethod
    async def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        """A review of the pull with inline `comments`, made once even when retried."""

    @abstractmethod
    async def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        """An answer in the thread of review comment `comment_id`, made once even when
        retried."""

    @abstractmethod
    async def resolve_review_thread(self, thread_id: str) -> bool:
        """Mark a review thread resolved; True when GitHub says it now is."""

    @abstractmethod
    async def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        """Start workflow `workflow_id` on branch `ref` (`workflow_dispatch`; the job's
        token needs `actions: write`)."""


class GitHubPort(GitHubReads, GitHubWrites):
    """One repository's GitHub, as a mode holds it: every read and every write."""


READ_OPERATIONS = frozenset(GitHubReads.__abstractmethods__)
"""The names of the port's reads."""
WRITE_OPERATIONS = frozenset(GitHubWrites.__abstractmethods__)
"""The names of the port's writes: what a dry run must record, and never make."""
