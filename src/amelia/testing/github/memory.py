"""The GitHub port in memory: a `GitHubState` read and changed in-process, for tests that
run a mode without HTTP, sockets or threads.

`InMemoryGitHub` answers exactly as the adapter over PyGithub (`amelia.github.client`)
answers from the local server holding the same state: the same models, the same GitHub
validation (review comments against the diff, 406 `too_large`, 422 for a duplicate pull or
a reply to a reply), and the same `GitHubError`s with the same messages, because each call
fails the way PyGithub fails and goes through the adapter's own retries
(`amelia.github.retrying.Retrier`). Faults queued on the state (`state.inject`) are taken
by the request the adapter would make for a call, so a retried page, a lost answer to a
create or an exhausted retry budget play out alike; nothing sleeps (a stall is a timeout
at once, `sleeps` records the waits the adapter would make).
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import quote

from github import GithubException
from github.GithubException import UnknownObjectException
from github.Requester import Requester
from loguru import logger
from requests.exceptions import ConnectionError as RequestsConnectionError
from requests.exceptions import ReadTimeout
from urllib3.exceptions import ProtocolError

from amelia.errors import GitHubError, GitHubNotFoundError
from amelia.github.models import (
    CommentInfo,
    InlineComment,
    IssueInfo,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
    ReviewThreadInfo,
)
from amelia.github.options import RetryPolicy, ReviewEvent
from amelia.github.port import GitHubPort
from amelia.github.retrying import Retrier, RetryRecord
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    StepInfo,
    WorkflowInfo,
    WorkflowRunInfo,
)
from amelia.testing.github.actions import OtherCheckSuite, WorkflowRun
from amelia.testing.github.faults import Fault
from amelia.testing.github.records import (
    ApiError,
    Comment,
    GraphQLError,
    Issue,
    Review,
    ReviewComment,
)
from amelia.testing.github.rest import DOCUMENTATION_URL, RecordedRequest, error_document
from amelia.testing.github.state import GitHubState

__all__ = ["InMemoryGitHub"]

T = TypeVar("T")
PER_PAGE = 100
"""Items per page of a list, as the adapter asks for them."""


def _connection_reset() -> OSError:
    """What `requests` raises when GitHub drops the connection."""
    reset = ConnectionResetError(104, "Connection reset by peer")
    return RequestsConnectionError(ProtocolError("Connection aborted.", reset))


def _graphql_failure(error: GraphQLError) -> GithubException:
    """What PyGithub raises for a GraphQL answer with errors (`Requester.graphql_query`)."""
    data: dict[str, Any] = {"errors": [error.as_json()]}
    if error.data is not None:
        data = {"data": error.data, **data}
    if error.kind == "NOT_FOUND":
        return UnknownObjectException(404, data, {}, error.message)
    return Requester.createException(400, {}, data)


class InMemoryGitHub(GitHubPort):
    """Repository `repo` of `state`, through the port, in-process."""

    def __init__(
        self,
        state: GitHubState,
        repo: str,
        *,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`policy`: the adapter's retries (default: its default); `sleep` is handed each
        wait instead of sleeping (default: recorded in `sleeps`)."""
        self.state = state
        self.full_name = repo
        self.sleeps: list[float] = []
        """The waits between attempts, in seconds (with the default `sleep`)."""
        self._retrier = Retrier(policy=policy, sleep=sleep or self.sleeps.append, clock=clock)
        self.requests: list[RecordedRequest] = []
        """The requests the adapter would have made for the calls so far, in order, a failed
        attempt too (method, path, the JSON body of a write and a file's `ref`; no headers)."""
        self._default_branch: str | None = None

    @property
    def retry_log(self) -> list[RetryRecord]:
        return self._retrier.retry_log

    @property
    def retry_count(self) -> int:
        return len(self.retry_log)

    @property
    def _owner(self) -> str:
        return self.full_name.split("/", 1)[0]

    @property
    def _api(self) -> str:
        return f"/repos/{self.full_name}"

    # one request, and one retried call -----------------------------------------------------

    def _request(
        self,
        method: str,
        path: str,
        answer: Callable[[], T],
        *,
        body: Any = None,
        query: dict[str, list[str]] | None = None,
    ) -> T:
        """One request as the adapter makes it (`body`: the JSON it sends, `query`: its
        parameters that matter): a fault queued for `method path` fails it (or, `lost`,
        fails it after it took effect); GitHub's refusals fail it as PyGithub does."""
        self.requests.append(RecordedRequest(method, path, query or {}, {}, body))
        fault = self.state.take_fault(method, path)
        if fault is None or fault.kind == "delay":
            return self._answer(answer)
        if fault.kind == "lost":
            with contextlib.suppress(GithubException):  # the answer is lost either way
                self._answer(answer)
            raise _connection_reset()
        raise self._failure(fault)

    @staticmethod
    def _answer(answer: Callable[[], T]) -> T:
        try:
            return answer()
        except ApiError as error:
            raise Requester.createException(error.status, {}, error_document(error)) from None
        except GraphQLError as error:
            raise _graphql_failure(error) from None

    @staticmethod
    def _failure(fault: Fault) -> Exception:
        if fault.kind == "reset":
            return _connection_reset()
        if fault.kind == "stall":
            return ReadTimeout("Read timed out.")
        headers = {name.lower(): value for name, value in fault.headers.items()}
        data = {"message": fault.message, "documentation_url": DOCUMENTATION_URL}
        return Requester.createException(fault.status, headers, data)

    def _call(
        self,
        operation: str,
        method: str,
        path: str,
        answer: Callable[[], T],
        *,
        body: Any = None,
        query: dict[str, list[str]] | None = None,
    ) -> T:
        return self._retrier.call(
            operation, lambda: self._request(method, path, answer, body=body, query=query)
        )

    def _repository(self) -> None:
        """The repository read once, as the adapter reads it before its first request."""
        if self._default_branch is None:
            self._default_branch = self._call(
                f"get repository {self.full_name}",
                "GET",
                self._api,
                lambda: self.state.repository(self.full_name).default_branch,
            )

    def _pages(self, operation: str, path: str, items: Callable[[], Sequence[T]]) -> list[T]:
        """Every item of a list read page by page, each page retried on its own."""
        collected: list[T] = []
        while True:
            start = len(collected)

            def page(start: int = start) -> tuple[list[T], bool]:
                found = items()
                return list(found[start : start + PER_PAGE]), len(found) > start + PER_PAGE

            chunk, more = self._call(operation, "GET", path, page)
            collected += chunk
            if not more:
                return collected

    # models --------------------------------------------------------------------------------

    @property
    def _name(self) -> str:
        """owner/name as the repository was registered (GitHub's spelling)."""
        return self.state.repository(self.full_name).full_name

    def _html(self, suffix: str) -> str:
        return f"{self.state.web_url}/{self._name}/{suffix}"

    def _issue(self, issue: Issue) -> IssueInfo:
        return IssueInfo(
            number=issue.number,
            title=issue.title,
            body=issue.body,
            author=issue.user.login,
            labels=tuple(issue.labels),
            state=issue.state,
            is_pull_request=issue.pull is not None,
            html_url=self._html(f"issues/{issue.number}"),
            created_at=datetime.fromisoformat(issue.created_at) if issue.created_at else None,
            thumbs_up=issue.reactions.get("+1", 0),
        )

    def _pull(self, issue: Issue) -> PullInfo:
        pull = issue.pull
        assert pull is not None
        head_repo = pull.head_repo or self._name
        return PullInfo(
            number=issue.number,
            title=issue.title,
            body=issue.body,
            author=issue.user.login,
            head_ref=pull.head,
            head_sha=pull.head_sha,
            base_ref=pull.base,
            draft=pull.draft,
            state=issue.state,
            html_url=self._html(f"pull/{issue.number}"),
            head_repo=head_repo,
            from_fork=head_repo.lower() != self._name.lower(),
        )

    def _comment(self, comment: Comment) -> CommentInfo:
        return CommentInfo(
            id=comment.id,
            body=comment.body,
            author=comment.user.login,
            html_url=self._html(f"issues/{comment.issue_number}#issuecomment-{comment.id}"),
        )

    def _review(self, number: int, review: Review) -> ReviewInfo:
        return ReviewInfo(
            id=review.id,
            state=review.state,
            commit_id=review.commit_id,
            html_url=self._html(f"pull/{number}#pullrequestreview-{review.id}"),
            body=review.body,
            author=review.user.login,
            author_type=review.user.type,
        )

    def _review_comment(self, number: int, comment: ReviewComment) -> ReviewCommentInfo:
        return ReviewCommentInfo(
            id=comment.id,
            review_id=comment.review_id,
            path=comment.path,
            line=comment.line,
            original_line=comment.line,
            side=comment.side,
            body=comment.body,
            author=comment.user.login,
            author_type=comment.user.type,
            commit_id=comment.commit_id,
            original_commit_id=comment.commit_id,
            in_reply_to_id=comment.in_reply_to_id,
            html_url=self._html(f"pull/{number}#discussion_r{comment.id}"),
            diff_hunk=comment.diff_hunk,
        )

    # reads ---------------------------------------------------------------------------------

    async def default_branch(self) -> str:
        self._repository()
        assert self._default_branch is not None
        return self._default_branch

    async def get_file(self, path: str, ref: str) -> bytes | None:
        self._repository()

        def read() -> bytes | None:
            found = self.state.contents(self.full_name, path, ref=ref)
            return found.data if found.kind == "file" else None

        try:
            return self._call(
                f"get {path} at {ref}",
                "GET",
                f"{self._api}/contents/{quote(path)}",
                read,
                query={"ref": [ref]},
            )
        except GitHubNotFoundError:
            return None

    async def token_facts(self) -> TokenFacts:
        self._repository()

        def scopes() -> tuple[str, ...] | None:
            self.state.repository(self.full_name)
            listed = self.state.oauth_scopes
            if listed is None:
                return None
            return tuple(scope.strip() for scope in listed if scope.strip())

        found = self._call("read the token's scopes", "GET", self._api, scopes)
        if found is not None:
            return TokenFacts(scopes=found)
        login = self._call(
            "ask who the token acts as",
            "POST",
            "/graphql",
            lambda: self.state.token_user.login,
            body={"query": "query { viewer { login } }"},
        )
        return TokenFacts(login=login or None)

    async def get_permission(self, user: str) -> str:
        self._repository()
        path = f"{self._api}/collaborators/{quote(user, safe='')}/permission"
        try:
            _user, role = self._call(
                f"get permission of {user}",
                "GET",
                path,
                lambda: self.state.permission(self.full_name, user),
            )
        except GitHubNotFoundError:
            return "none"
        return role or "none"

    async def get_issue(self, number: int) -> IssueInfo:
        self._repository()
        issue = self._call(
            f"get issue #{number}",
            "GET",
            f"{self._api}/issues/{number}",
            lambda: self.state.issue(self.full_name, number),
        )
        return self._issue(issue)

    async def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        self._repository()
        comments = self._pages(
            f"list comments of #{issue_number}",
            f"{self._api}/issues/{issue_number}/comments",
            lambda: self.state.issue_comments(self.full_name, issue_number),
        )
        for comment in comments:
            if marker in comment.body:
                return self._comment(comment)
        return None

    async def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        listed = self._pages(
            f"list issues labelled {label}",
            f"{self._api}/issues",
            lambda: self.state.list_issues(
                self.full_name, state=state, labels=[label], sort="created", direction="asc"
            ),
        )
        return [self._issue(issue) for issue in listed if issue.pull is None]

    async def get_pull(self, number: int) -> PullInfo:
        self._repository()
        issue = self._call(
            f"get pull #{number}",
            "GET",
            f"{self._api}/pulls/{number}",
            lambda: self.state.pull(self.full_name, number)[0],
        )
        return self._pull(issue)

    async def find_open_pull(self, head: str) -> PullInfo | None:
        self._repository()
        found = self._pages(
            f"find pull for {head}",
            f"{self._api}/pulls",
            lambda: self.state.list_pulls(self.full_name, head=f"{self._owner}:{head}"),
        )
        return self._pull(found[0]) if found else None

    async def get_pull_diff(self, number: int) -> str | None:
        self._repository()
        try:
            return self._call(
                f"get diff of pull #{number}",
                "GET",
                f"{self._api}/pulls/{number}",
                lambda: self.state.pull_diff(self.full_name, number),
            )
        except GitHubError as error:
            if error.status != HTTPStatus.NOT_ACCEPTABLE:
                raise
            logger.warning("{}", error.message)
            return None

    async def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        self._repository()
        reviews = self._pages(
            f"list reviews of pull #{pull_number}",
            f"{self._api}/pulls/{pull_number}/reviews",
            lambda: self.state.reviews(self.full_name, pull_number),
        )
        return [self._review(pull_number, review) for review in reviews]

    async def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        self._repository()
        comments = self._pages(
            f"list review comments of pull #{pull_number}",
            f"{self._api}/pulls/{pull_number}/comments",
            lambda: self.state.review_comments(self.full_name, pull_number),
        )
        return [self._review_comment(pull_number, comment) for comment in comments]

    async def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        threads: list[ReviewThreadInfo] = []
        while True:
            start = len(threads)

            def page(start: int = start) -> tuple[list[ReviewThreadInfo], bool]:
                _pull, found = self.state.review_threads(self.full_name, pull_number)
                chosen = found[start : start + PER_PAGE]
                infos = [
                    ReviewThreadInfo(
                        id=t.id,
                        is_resolved=t.is_resolved,
                        comment_ids=tuple(t.comment_ids[:PER_PAGE]),
                    )
                    for t in chosen
                ]
                return infos, bool(chosen) and start + len(chosen) < len(found)

            chunk, more = self._call(
                f"list review threads of pull #{pull_number}",
                "POST",
                "/graphql",
                page,
                body={"query": "query reviewThreads", "variables": {"number": pull_number}},
            )
            threads += chunk
            if not more:
                return threads

    # GitHub Actions and checks -------------------------------------------------------------

    def _run(self, run: WorkflowRun) -> WorkflowRunInfo:
        return WorkflowRunInfo(
            id=run.id,
            name=run.name,
            workflow_id=run.workflow_id,
            path=run.path,
            head_branch=run.head_branch,
            head_sha=run.head_sha,
            event=run.event,
            status=run.status,
            conclusion=run.conclusion,
            html_url=self._html(f"actions/runs/{run.id}"),
            check_suite_id=run.check_suite_id,
        )

    @staticmethod
    def _polled(items: tuple[T, ...], etag: str | None) -> Polled[T]:
        """A conditional read's answer: nothing when `etag` still matches."""
        tag = 'W/"' + hashlib.sha256(repr(items).encode()).hexdigest()[:40] + '"'
        return Polled(etag=tag) if tag == etag else Polled(etag=tag, items=items)

    async def list_workflows(self) -> list[WorkflowInfo]:
        self._repository()
        found = self._pages(
            "list workflows",
            f"{self._api}/actions/workflows",
            lambda: self.state.actions(self.full_name).workflows(),
        )
        return [
            WorkflowInfo(
                id=w.id,
                name=w.name,
                path=w.path,
                html_url=self._html(f"blob/{self._default_branch}/{w.path}"),
            )
            for w in found
        ]

    async def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        self._repository()
        runs = self._call(
            f"list workflow runs of {head_sha[:12]}",
            "GET",
            f"{self._api}/actions/runs",
            lambda: tuple(
                self._run(run)
                for run in self.state.actions(self.full_name).read_runs(head_sha, event)[:PER_PAGE]
            ),
        )
        return self._polled(runs, etag)

    async def list_jobs(self, run_id: int) -> list[JobInfo]:
        self._repository()

        def jobs() -> list[JobInfo]:
            run = self.state.actions(self.full_name).run(run_id)
            steps = tuple(
                StepInfo(number=n, name=name, status=status, conclusion=conclusion)
                for n, (name, status, conclusion) in enumerate(run.job.steps, start=1)
            )
            job = JobInfo(
                id=run.job.id,
                run_id=run.id,
                name=run.job.name,
                status=run.job.status,
                conclusion=run.job.conclusion,
                html_url=self._html(f"actions/runs/{run.id}/job/{run.job.id}"),
                steps=steps,
            )
            return [job]

        return self._pages(
            f"list jobs of run {run_id}", f"{self._api}/actions/runs/{run_id}/jobs", jobs
        )

    async def get_job_log(self, job_id: int) -> str | None:
        self._repository()
        try:
            return self._call(
                f"get log of job {job_id}",
                "GET",
                f"{self._api}/actions/jobs/{job_id}/logs",
                lambda: self.state.actions(self.full_name).job(job_id)[1].log,
            )
        except GitHubNotFoundError:
            return None

    async def list_check_suites(
        self, ref: str, *, etag: str | None = None
    ) -> Polled[CheckSuiteInfo]:
        self._repository()
        suites = self._call(
            f"list check suites of {ref[:12]}",
            "GET",
            f"{self._api}/commits/{quote(ref, safe='')}/check-suites",
            lambda: (
                tuple(
                    CheckSuiteInfo(
                        id=run.check_suite_id,
                        app="github-actions",
                        head_sha=run.head_sha,
                        status=run.status,
                        conclusion=run.conclusion,
                        check_runs=1,
                    )
                    for run in self.state.actions(self.full_name).read_runs(ref)
                )
                + tuple(
                    CheckSuiteInfo(
                        id=other.id,
                        app=other.app,
                        head_sha=other.head_sha,
                        status=other.status,
                        conclusion=other.conclusion,
                        check_runs=1,
                    )
                    for other in self._other_suites(ref)
                )
            ),
        )
        return self._polled(suites, etag)

    async def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        self._repository()
        return self._pages(
            f"list check runs of {ref[:12]}",
            f"{self._api}/commits/{quote(ref, safe='')}/check-runs",
            lambda: (
                [
                    CheckRunInfo(
                        id=run.job.id,
                        name=run.job.name,
                        app="github-actions",
                        status=run.job.status,
                        conclusion=run.job.conclusion,
                        html_url=self._html(f"actions/runs/{run.id}/job/{run.job.id}"),
                        check_suite_id=run.check_suite_id,
                    )
                    for run in self.state.actions(self.full_name).read_runs(ref)
                ]
                + [
                    # Another app's one check run: its id is the suite's plus one.
                    CheckRunInfo(
                        id=other.id + 1,
                        name=other.name,
                        app=other.app,
                        status=other.status,
                        conclusion=other.conclusion,
                        html_url=self._html(f"runs/{other.id + 1}"),
                        check_suite_id=other.id,
                    )
                    for other in self._other_suites(ref)
                ]
            ),
        )

    def _other_suites(self, ref: str) -> list[OtherCheckSuite]:
        """The check suites apps other than GitHub Actions report on commit `ref`."""
        suites = self.state.actions(self.full_name).other_suites
        return [suite for suite in suites if suite.head_sha == ref]

    # writes --------------------------------------------------------------------------------

    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        self._repository()
        comment = self._call(
            f"comment on #{issue_number}",
            "POST",
            f"{self._api}/issues/{issue_number}/comments",
            lambda: self.state.create_comment(self.full_name, issue_number, body),
            body={"body": body},
        )
        return self._comment(comment)

    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        self._repository()
        comment = self._call(
            f"edit comment {comment_id}",
            "PATCH",
            f"{self._api}/issues/comments/{comment_id}",
            lambda: self.state.edit_comment(self.full_name, comment_id, body),
            body={"body": body},
        )
        return self._comment(comment)

    async def delete_comment(self, comment_id: int) -> None:
        self._repository()
        self._call(
            f"delete comment {comment_id}",
            "DELETE",
            f"{self._api}/issues/comments/{comment_id}",
            lambda: self.state.delete_comment(self.full_name, comment_id),
        )

    async def create_pull(
        self, head: str, base: str, title: str, body: str, *, draft: bool
    ) -> PullInfo:
        self._repository()
        pulls = f"{self._api}/pulls"

        def existing() -> Issue | None:
            found = self._request(
                "GET",
                pulls,
                lambda: self.state.list_pulls(self.full_name, head=f"{self._owner}:{head}"),
            )
            return found[0] if found else None

        def post() -> Issue:
            return self._request(
                "POST",
                pulls,
                lambda: self.state.create_pull(
                    self.full_name, head=head, base=base, title=title, body=body, draft=draft
                ),
                body={"head": head, "base": base, "title": title, "body": body, "draft": draft},
            )

        return self._pull(self._retrier.create_once(f"open pull for {head}", post, existing))

    async def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        self._repository()
        issue = self._call(
            f"update pull #{number}",
            "PATCH",
            f"{self._api}/pulls/{number}",
            lambda: self.state.update_pull(self.full_name, number, title=title, body=body),
            body={
                name: value
                for name, value in (("title", title), ("body", body))
                if value is not None
            },
        )
        return self._pull(issue)

    async def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        self._repository()
        path = f"{self._api}/pulls/{pull_number}/reviews"

        def existing() -> Review | None:
            found = self._request(
                "GET", path, lambda: self.state.reviews(self.full_name, pull_number)[:PER_PAGE]
            )
            for review in reversed(found):
                same_commit = not commit_id or review.commit_id == commit_id
                if review.body == body and same_commit:
                    return review
            return None

        def post() -> Review:
            return self._request(
                "POST",
                path,
                lambda: self.state.create_review(
                    self.full_name,
                    pull_number,
                    body=body,
                    event=event,
                    comments=[c.model_dump() for c in comments],
                    commit_id=commit_id or None,
                ),
                body={
                    "body": body,
                    "event": event,
                    "comments": [c.model_dump() for c in comments],
                    **({"commit_id": commit_id} if commit_id else {}),
                },
            )

        review = self._retrier.create_once(f"review pull #{pull_number}", post, existing)
        return self._review(pull_number, review)

    async def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        self._repository()

        def existing() -> ReviewComment | None:
            found = self._request(
                "GET",
                f"{self._api}/pulls/{pull_number}/comments",
                lambda: self.state.review_comments(self.full_name, pull_number, newest_first=True)[
                    :PER_PAGE
                ],
            )
            for comment in found:
                if comment.in_reply_to_id == comment_id and comment.body == body:
                    return comment
            return None

        def post() -> ReviewComment:
            return self._request(
                "POST",
                f"{self._api}/pulls/{pull_number}/comments/{comment_id}/replies",
                lambda: self.state.reply_to_review_comment(
                    self.full_name, pull_number, comment_id, body
                ),
                body={"body": body},
            )

        reply = self._retrier.create_once(f"reply to review comment {comment_id}", post, existing)
        return self._review_comment(pull_number, reply)

    async def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        self._repository()
        self._call(
            f"dispatch workflow {workflow_id} on {ref}",
            "POST",
            f"{self._api}/actions/workflows/{workflow_id}/dispatches",
            lambda: self.state.actions(self.full_name, write=True).dispatch(str(workflow_id), ref),
            body={"ref": ref},
        )

    async def resolve_review_thread(self, thread_id: str) -> bool:
        thread = self._call(
            f"resolve review thread {thread_id}",
            "POST",
            "/graphql",
            lambda: self.state.resolve_review_thread(thread_id),
            body={"query": "mutation resolveReviewThread", "variables": {"threadId": thread_id}},
        )
        return thread.is_resolved
