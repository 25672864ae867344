"""GitHub REST calls the pipeline needs, through PyGithub, retried by tenacity.

The client is synchronous because PyGithub is: async callers run its methods with
`await asyncio.to_thread(client.method, ...)`. Every call is retried on 5xx, 429, secondary
rate limits, exhausted primary rate limits, connection errors and timeouts, honouring
`Retry-After` and `X-RateLimit-Reset`, within a bounded number of attempts and a bounded
total wait. Anything else becomes a typed `GitHubError` with a one-line message. Results are
plain pydantic models, read inside the retried call, so no lazy PyGithub object can make an
unretried request later.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from datetime import datetime
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from typing import Any, Literal, TypeVar
from urllib.parse import quote, urlencode

from github import Auth, Github, GithubException
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequestComment import PullRequestComment
from github.PullRequestReview import PullRequestReview
from github.Repository import Repository
from loguru import logger
from pydantic import BaseModel, ConfigDict, Field
from tenacity import RetryCallState, Retrying, retry_if_exception

from amelia.errors import (
    GitHubAuthError,
    GitHubError,
    GitHubNotFoundError,
    GitHubRetryExhaustedError,
    GitHubValidationError,
)
from amelia.github.options import DEFAULT_API_URL, DEFAULT_TIMEOUT, RetryPolicy, ReviewEvent
from amelia.github.token_facts import TokenFacts

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


T = TypeVar("T")
_RESULT_CONFIG = ConfigDict(frozen=True, defer_build=True)
"""A run reads a few of these results: each builds its validator when first used."""


class RetryRecord(BaseModel):
    """One retry the client made: which call, why, and how long it waited first."""

    model_config = _RESULT_CONFIG

    operation: str
    attempt: int
    reason: str
    wait_seconds: float


class IssueInfo(BaseModel):
    model_config = _RESULT_CONFIG

    number: int
    title: str
    body: str
    author: str
    labels: tuple[str, ...] = ()
    state: str = "open"
    is_pull_request: bool = False
    html_url: str = ""
    created_at: datetime | None = None
    thumbs_up: int = 0
    """How many people reacted with 👍 (the `+1` of GitHub's `reactions` rollup)."""


class PullInfo(BaseModel):
    model_config = _RESULT_CONFIG

    number: int
    title: str
    body: str
    author: str
    head_ref: str
    head_sha: str
    base_ref: str
    draft: bool = False
    state: str = "open"
    html_url: str = ""
    head_repo: str = ""
    """owner/name of the repository the head branch is in ("" when GitHub has none: a
    deleted fork)."""
    from_fork: bool = False
    """True when the head lives in another repository than the base (a fork), or in one
    GitHub no longer names (a deleted fork)."""


class CommentInfo(BaseModel):
    model_config = _RESULT_CONFIG

    id: int
    body: str
    author: str
    html_url: str = ""


class ReviewInfo(BaseModel):
    model_config = _RESULT_CONFIG

    id: int
    state: str
    commit_id: str | None = None
    html_url: str = ""
    body: str = ""
    author: str = ""
    author_type: str = ""
    """`User`, `Bot` or `Organization`, as GitHub types the review's author."""


class ReviewCommentInfo(BaseModel):
    """One comment of a pull request review thread (an inline comment or a reply in it)."""

    model_config = _RESULT_CONFIG

    id: int
    review_id: int | None = None
    path: str
    line: int | None = None
    """The line in the pull's current diff; None once a push changed it (outdated)."""
    original_line: int | None = None
    """The line at `original_commit_id`, the commit the comment was made on."""
    side: str = "RIGHT"
    body: str
    author: str = ""
    author_type: str = ""
    commit_id: str = ""
    original_commit_id: str = ""
    in_reply_to_id: int | None = None
    """Set on replies: the comment the thread starts with."""
    html_url: str = ""
    diff_hunk: str = ""
    """The diff hunk the comment is on, up to its line."""


class ReviewThreadInfo(BaseModel):
    """A review thread as GraphQL's `PullRequestReviewThread` describes it."""

    model_config = _RESULT_CONFIG

    id: str
    """The thread's node id (what `resolveReviewThread` takes)."""
    is_resolved: bool
    comment_ids: tuple[int, ...] = ()
    """The REST ids (`databaseId`) of its comments, the first one starting the thread."""


class InlineComment(BaseModel):
    """A review comment on one line of the new (RIGHT) or old (LEFT) side of a diff."""

    model_config = _RESULT_CONFIG

    path: str
    line: int = Field(ge=1)
    body: str
    side: Literal["RIGHT", "LEFT"] = "RIGHT"


def _header(exc: GithubException, name: str) -> str | None:
    headers = exc.headers or {}
    value = headers.get(name) or headers.get(name.lower())
    return None if value is None else str(value)


def _message(exc: BaseException) -> str:
    if isinstance(exc, GithubException):
        data = exc.data if isinstance(exc.data, dict) else {}
        text = str(data.get("message") or exc.message or "").strip()
        errors = data.get("errors")
        if errors:
            details = [
                e.get("message", e.get("code", "")) if isinstance(e, dict) else e for e in errors
            ]
            text = f"{text} ({'; '.join(str(d) for d in details)})"
        return " ".join(f"{exc.status} {text}".split())
    return " ".join(f"{type(exc).__name__}: {exc}".split())


def is_retryable(exc: BaseException) -> bool:
    """True for failures that may pass on their own: server errors, rate limits, the network."""
    if isinstance(exc, GithubException):
        if exc.status >= 500 or exc.status == 429:
            return True
        if exc.status == 403:
            text = _message(exc).lower()
            return (
                "rate limit" in text
                or _header(exc, "retry-after") is not None
                or _header(exc, "x-ratelimit-remaining") == "0"
            )
        return False
    # requests' exceptions (connection reset, timeouts) derive from OSError.
    return isinstance(exc, OSError)


def server_requested_delay(exc: BaseException, now: float) -> float | None:
    """Seconds GitHub asked us to wait (`Retry-After`, or until `X-RateLimit-Reset`)."""
    if not isinstance(exc, GithubException):
        return None
    retry_after = _header(exc, "retry-after")
    if retry_after is not None:
        if retry_after.strip().isdigit():
            return float(retry_after)
        try:
            return max(0.0, parsedate_to_datetime(retry_after).timestamp() - now)
        except (TypeError, ValueError):
            pass
    reset = _header(exc, "x-ratelimit-reset")
    if _header(exc, "x-ratelimit-remaining") == "0" and reset is not None and reset.isdigit():
        # One second of slack: GitHub's reset epoch is rounded down.
        return max(0.0, float(reset) - now + 1.0)
    return None


def _typed_error(operation: str, exc: BaseException, attempts: int) -> GitHubError:
    text = _message(exc)
    if is_retryable(exc):
        return GitHubRetryExhaustedError(
            f"GitHub {operation} failed after {attempts} attempt(s): {text}",
            status=getattr(exc, "status", None),
        )
    status = exc.status if isinstance(exc, GithubException) else None
    kind: type[GitHubError] = {
        401: GitHubAuthError,
        403: GitHubAuthError,
        404: GitHubNotFoundError,
        410: GitHubNotFoundError,
        422: GitHubValidationError,
    }.get(status or 0, GitHubError)
    return kind(f"GitHub {operation} failed: {text}", status=status)


class GitHubClient:
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
        """`throttle=False` drops PyGithub's pause between writes too (tests, local servers)."""
        self.full_name = repo
        self.policy = policy or RetryPolicy()
        self.retry_log: list[RetryRecord] = []
        self._sleep = sleep
        self._clock = clock
        # GitHub asks for a pause between writes (secondary rate limits), not between
        # sequential reads: PyGithub's default 0.25 s before every read delayed the first
        # progress comment of a run by a second.
        pause: dict[str, float | None] = {"seconds_between_requests": None}
        if not throttle:
            pause["seconds_between_writes"] = None
        self._gh = Github(
            base_url=base_url.rstrip("/"),
            auth=Auth.Token(token),
            retry=None,
            timeout=timeout,
            per_page=per_page,
            user_agent="amelia",
            **pause,  # type: ignore[arg-type]
        )
        self._repo: Repository | None = None

    @property
    def retry_count(self) -> int:
        return len(self.retry_log)

    def close(self) -> None:
        self._gh.close()

    # retry machinery ---------------------------------------------------------------------

    def _call(self, operation: str, fn: Callable[[], T]) -> T:
        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            requested = server_requested_delay(exc, self._clock()) if exc else None
            if requested is not None:
                return requested
            backoff = self.policy.backoff_base * 2 ** (state.attempt_number - 1)
            return float(min(backoff, self.policy.backoff_max))

        def stop(state: RetryCallState) -> bool:
            return (
                state.attempt_number >= self.policy.max_attempts
                or state.idle_for + state.upcoming_sleep > self.policy.max_total_wait
            )

        def record(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            entry = RetryRecord(
                operation=operation,
                attempt=state.attempt_number,
                reason=_message(exc) if exc else "",
                wait_seconds=state.upcoming_sleep,
            )
            self.retry_log.append(entry)
            logger.warning(
                "GitHub {} attempt {} failed ({}); retrying in {:.1f}s",
                operation,
                entry.attempt,
                entry.reason,
                entry.wait_seconds,
            )

        retrying = Retrying(
            retry=retry_if_exception(is_retryable),
            wait=wait,
            stop=stop,
            sleep=self._sleep,
            before_sleep=record,
            reraise=True,
        )
        attempts = 0

        def counted() -> T:
            nonlocal attempts
            attempts += 1
            return fn()

        try:
            return retrying(counted)
        except (GithubException, OSError) as exc:
            raise _typed_error(operation, exc, attempts) from exc

    def _repository(self) -> Repository:
        if self._repo is None:
            self._repo = self._call(
                f"get repository {self.full_name}", lambda: self._gh.get_repo(self.full_name)
            )
        return self._repo

    def _request(
        self, verb: str, path: str, body: dict[str, Any] | None = None, accept: str | None = None
    ) -> Any:
        repo = self._repository()
        headers = {"Accept": accept} if accept else None
        _, data = repo.requester.requestJsonAndCheck(
            verb, f"{repo.url}{path}", input=body, headers=headers
        )
        return data

    # repository ----------------------------------------------------------------------------

    def default_branch(self) -> str:
        return self._repository().default_branch

    def branch_exists(self, name: str) -> bool:
        repo = self._repository()
        try:
            self._call(f"get branch {name}", lambda: repo.get_branch(name))
        except GitHubNotFoundError:
            return False
        return True

    def get_file(self, path: str, ref: str) -> bytes | None:
        """The bytes of the file `path` at `ref` (a branch, tag or commit); None when there is
        no such file (a folder counts as none)."""

        def read() -> bytes | None:
            found = self._request("GET", f"/contents/{quote(path)}?{urlencode({'ref': ref})}")
            if not isinstance(found, dict) or found.get("type") != "file":
                return None
            if found.get("encoding") != "base64":
                raise GitHubError(f"{path} at {ref} is too large to read through the API")
            return base64.b64decode(str(found.get("content") or ""))

        try:
            return self._call(f"get {path} at {ref}", read)
        except GitHubNotFoundError:
            return None

    def token_facts(self) -> TokenFacts:
        """Who the token acts as (GraphQL `viewer`) and its OAuth scopes (`X-OAuth-Scopes`,
        which GitHub sends for classic personal access tokens and OAuth tokens only)."""
        repo = self._repository()

        def scopes() -> tuple[str, ...] | None:
            headers, _ = repo.requester.requestJsonAndCheck("GET", repo.url)
            listed = headers.get("x-oauth-scopes")
            if listed is None:
                return None
            return tuple(scope.strip() for scope in listed.split(",") if scope.strip())

        found = self._call("read the token's scopes", scopes)
        if found is not None:
            return TokenFacts(scopes=found)
        data = self._graphql("ask who the token acts as", "query { viewer { login } }", {})
        login = (data.get("viewer") or {}).get("login")
        return TokenFacts(login=str(login) if login else None)

    def get_permission(self, user: str) -> str:
        """The user's role: admin, maintain, write, triage, read or none."""
        try:
            data = self._call(
                f"get permission of {user}",
                lambda: self._request("GET", f"/collaborators/{quote(user, safe='')}/permission"),
            )
        except GitHubNotFoundError:
            return "none"
        role = str(data.get("role_name") or "")
        if role in ("admin", "maintain", "write", "triage", "read"):
            return role
        return str(data.get("permission") or "none")

    # issues and comments -------------------------------------------------------------------

    def get_issue(self, number: int) -> IssueInfo:
        repo = self._repository()
        return self._call(f"get issue #{number}", lambda: _issue_info(repo.get_issue(number)))

    def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        data = self._call(
            f"comment on #{issue_number}",
            lambda: self._request("POST", f"/issues/{issue_number}/comments", {"body": body}),
        )
        return _comment_info(data)

    def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        data = self._call(
            f"edit comment {comment_id}",
            lambda: self._request("PATCH", f"/issues/comments/{comment_id}", {"body": body}),
        )
        return _comment_info(data)

    def delete_comment(self, comment_id: int) -> None:
        self._call(
            f"delete comment {comment_id}",
            lambda: self._request("DELETE", f"/issues/comments/{comment_id}"),
        )

    def list_comments(self, issue_number: int) -> list[CommentInfo]:
        operation = f"list comments of #{issue_number}"
        path = f"/issues/{issue_number}/comments"
        return [_comment_info(c) for c in self._list_pages(operation, IssueComment, path)]

    def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        """The oldest comment on the issue or pull whose body contains `marker`."""
        for comment in self.list_comments(issue_number):
            if marker in comment.body:
                return comment
        return None

    def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        """Issues (not pulls) of this repository carrying `label`, oldest first (GitHub's
        `sort=created&direction=asc`), one request per page.

        The repository's issue list, not the search API: search stops at 1,000 results and
        has a much smaller rate limit. GitHub's list holds pull requests too (they are
        issues to it), so labelled pulls cost room on the pages but are left out here.
        """
        # A lazy repository object: listing needs its URL, not a request for its details.
        repository = self._gh.withLazy(True).get_repo(self.full_name)
        pages = repository.get_issues(state=state, labels=[label], sort="created", direction="asc")
        listed = [_issue_info(i) for i in self._collect(f"list issues labelled {label}", pages)]
        return [issue for issue in listed if not issue.is_pull_request]

    def _list_pages(self, operation: str, kind: type[Any], path: str) -> list[dict[str, Any]]:
        """The JSON of every item of the paginated list at `path` below the repository."""
        repo = self._repository()
        pages = PaginatedList(kind, repo.requester, f"{repo.url}{path}", None)
        return [_raw(item) for item in self._collect(operation, pages)]

    def _collect(self, operation: str, paginated: Any) -> list[Any]:
        """Walk a PaginatedList, retrying each page fetch on its own (it resumes, not restarts)."""
        items: list[Any] = []
        while True:
            index = len(items)

            def item_at(i: int = index) -> Any:
                try:
                    return paginated[i]
                except IndexError:
                    return None

            item = self._call(operation, item_at)
            if item is None:
                return items
            items.append(item)

    # pulls and reviews ---------------------------------------------------------------------

    def get_pull(self, number: int) -> PullInfo:
        data = self._call(f"get pull #{number}", lambda: self._request("GET", f"/pulls/{number}"))
        return _pull_info(data)

    def _create_once(
        self, operation: str, post: Callable[[], Any], existing: Callable[[], Any | None]
    ) -> Any:
        """POST once in effect: GitHub may have acted on an attempt whose answer was lost (a
        timeout, a reset), so before each retry look for what that attempt made."""
        attempts = 0

        def attempt() -> Any:
            nonlocal attempts
            attempts += 1
            if attempts > 1:
                found = existing()
                if found is not None:
                    logger.info("GitHub {}: the earlier attempt took effect", operation)
                    return found
            return post()

        return self._call(operation, attempt)

    def create_pull(self, head: str, base: str, title: str, body: str, draft: bool) -> PullInfo:
        payload = {"head": head, "base": base, "title": title, "body": body, "draft": draft}
        owner = self.full_name.split("/", 1)[0]
        query = urlencode({"state": "open", "head": f"{owner}:{head}", "per_page": 1})

        def existing() -> Any | None:
            found = self._request("GET", f"/pulls?{query}")
            return found[0] if isinstance(found, list) and found else None

        data = self._create_once(
            f"open pull for {head}", lambda: self._request("POST", "/pulls", payload), existing
        )
        return _pull_info(data)

    def find_open_pull(self, head: str) -> PullInfo | None:
        """The open pull whose head is branch `head` of this repository, if any."""
        repo = self._repository()
        owner = self.full_name.split("/", 1)[0]
        pulls = self._call(
            f"find pull for {head}", lambda: repo.get_pulls(state="open", head=f"{owner}:{head}")
        )
        found = self._collect(f"find pull for {head}", pulls)
        return _pull_info(_raw(found[0])) if found else None

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        changes = {k: v for k, v in {"title": title, "body": body}.items() if v is not None}
        data = self._call(
            f"update pull #{number}", lambda: self._request("PATCH", f"/pulls/{number}", changes)
        )
        return _pull_info(data)

    def get_pull_diff(self, number: int) -> str | None:
        """The pull's unified diff as text; None when GitHub will not make it.

        GitHub answers 406 (`too_large`) for a diff over 20,000 lines (and lists at most
        3,000 files of a pull): callers fall back to the diff of their own checkout."""
        try:
            data = self._call(
                f"get diff of pull #{number}",
                lambda: self._request(
                    "GET", f"/pulls/{number}", accept="application/vnd.github.diff"
                ),
            )
        except GitHubError as error:
            if error.status != HTTPStatus.NOT_ACCEPTABLE:
                raise
            logger.warning("{}", error.message)
            return None
        # PyGithub wraps a non-JSON body as {"data": text}.
        if isinstance(data, dict) and isinstance(data.get("data"), str):
            return str(data["data"])
        return "" if data is None else str(data)

    def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        payload: dict[str, Any] = {
            "body": body,
            "event": event,
            "comments": [c.model_dump() for c in comments],
        }
        if commit_id:
            payload["commit_id"] = commit_id

        def existing() -> Any | None:
            # Oldest first, 100 a page: a review just made is on the first page of most pulls.
            found = self._request("GET", f"/pulls/{pull_number}/reviews?per_page=100")
            for review in reversed(found if isinstance(found, list) else []):
                same_commit = not commit_id or review.get("commit_id") == commit_id
                if review.get("body") == body and same_commit:
                    return review
            return None

        data = self._create_once(
            f"review pull #{pull_number}",
            lambda: self._request("POST", f"/pulls/{pull_number}/reviews", payload),
            existing,
        )
        return _review_info(data)

    def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        """The pull's reviews, oldest first."""
        operation = f"list reviews of pull #{pull_number}"
        path = f"/pulls/{pull_number}/reviews"
        return [_review_info(r) for r in self._list_pages(operation, PullRequestReview, path)]

    def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        """Every review comment of the pull (thread starts and replies), oldest first."""
        operation = f"list review comments of pull #{pull_number}"
        path = f"/pulls/{pull_number}/comments"
        pages = self._list_pages(operation, PullRequestComment, path)
        return [_review_comment_info(c) for c in pages]

    def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        """Answer in the thread of review comment `comment_id`."""

        def existing() -> Any | None:
            # Newest first: a reply just made is on the first page.
            query = "sort=created&direction=desc&per_page=100"
            found = self._request("GET", f"/pulls/{pull_number}/comments?{query}")
            for comment in found if isinstance(found, list) else []:
                if comment.get("in_reply_to_id") == comment_id and comment.get("body") == body:
                    return comment
            return None

        path = f"/pulls/{pull_number}/comments/{comment_id}/replies"
        data = self._create_once(
            f"reply to review comment {comment_id}",
            lambda: self._request("POST", path, {"body": body}),
            existing,
        )
        return _review_comment_info(data)

    def _graphql(self, operation: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        requester = self._gh.requester
        _, data = self._call(operation, lambda: requester.graphql_query(query, variables))
        return dict(data.get("data") or {})

    def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        """The pull's review threads (GraphQL: REST does not say whether one is resolved)."""
        owner, name = self.full_name.split("/", 1)
        threads: list[ReviewThreadInfo] = []
        cursor: str | None = None
        while True:
            variables = {"owner": owner, "name": name, "number": pull_number, "cursor": cursor}
            data = self._graphql(
                f"list review threads of pull #{pull_number}", _THREADS_QUERY, variables
            )
            page = ((data.get("repository") or {}).get("pullRequest") or {}).get(
                "reviewThreads"
            ) or {}
            for node in page.get("nodes") or ():
                comments = (node.get("comments") or {}).get("nodes") or ()
                threads.append(
                    ReviewThreadInfo(
                        id=str(node["id"]),
                        is_resolved=bool(node.get("isResolved")),
                        comment_ids=tuple(
                            int(c["databaseId"]) for c in comments if c.get("databaseId")
                        ),
                    )
                )
            info = page.get("pageInfo") or {}
            if not info.get("hasNextPage") or not info.get("endCursor"):
                return threads
            cursor = str(info["endCursor"])

    def resolve_review_thread(self, thread_id: str) -> bool:
        """Mark a review thread resolved; True when GitHub says it now is. A token that may
        not resolve threads raises `GitHubError` (GitHub answers with a GraphQL error)."""
        data = self._graphql(
            f"resolve review thread {thread_id}", _RESOLVE_MUTATION, {"threadId": thread_id}
        )
        thread = (data.get("resolveReviewThread") or {}).get("thread") or {}
        return bool(thread.get("isResolved"))


_THREADS_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $cursor: String) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $cursor) {
        pageInfo { hasNextPage endCursor }
        nodes { id isResolved comments(first: 100) { nodes { databaseId } } }
      }
    }
  }
}
"""
_RESOLVE_MUTATION = """
mutation($threadId: ID!) {
  resolveReviewThread(input: {threadId: $threadId}) { thread { id isResolved } }
}
"""


def _raw(obj: Any) -> dict[str, Any]:
    """The JSON PyGithub got. Its attribute getters would fetch the object again whenever
    GitHub omitted a field (an issue that is no pull request has no `pull_request`), one
    request each."""
    data = obj._rawData if not isinstance(obj, dict) else obj
    return dict(data)


def _issue_info(issue: Any) -> IssueInfo:
    data = _raw(issue)
    return IssueInfo(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        labels=tuple(str(label["name"]) for label in data.get("labels") or ()),
        state=str(data.get("state", "open")),
        is_pull_request=data.get("pull_request") is not None,
        html_url=str(data.get("html_url") or ""),
        created_at=data.get("created_at") or None,
        thumbs_up=int((data.get("reactions") or {}).get("+1") or 0),
    )


def _comment_info(data: Any) -> CommentInfo:
    return CommentInfo(
        id=int(data["id"]),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        html_url=str(data.get("html_url") or ""),
    )


def _review_info(data: Any) -> ReviewInfo:
    user = data.get("user") or {}
    return ReviewInfo(
        id=int(data["id"]),
        state=str(data.get("state", "")),
        commit_id=data.get("commit_id"),
        html_url=str(data.get("html_url") or ""),
        body=str(data.get("body") or ""),
        author=str(user.get("login", "")),
        author_type=str(user.get("type", "")),
    )


def _optional_int(value: Any) -> int | None:
    return int(value) if value is not None else None


def _review_comment_info(data: Any) -> ReviewCommentInfo:
    user = data.get("user") or {}
    return ReviewCommentInfo(
        id=int(data["id"]),
        review_id=_optional_int(data.get("pull_request_review_id")),
        path=str(data.get("path") or ""),
        line=_optional_int(data.get("line")),
        original_line=_optional_int(data.get("original_line")),
        side=str(data.get("side") or "RIGHT"),
        body=str(data.get("body") or ""),
        author=str(user.get("login", "")),
        author_type=str(user.get("type", "")),
        commit_id=str(data.get("commit_id") or ""),
        original_commit_id=str(data.get("original_commit_id") or ""),
        in_reply_to_id=_optional_int(data.get("in_reply_to_id")),
        html_url=str(data.get("html_url") or ""),
        diff_hunk=str(data.get("diff_hunk") or ""),
    )


def _pull_info(data: Any) -> PullInfo:
    return PullInfo(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        head_ref=str(data["head"]["ref"]),
        head_sha=str(data["head"]["sha"]),
        base_ref=str(data["base"]["ref"]),
        draft=bool(data.get("draft", False)),
        state=str(data.get("state", "open")),
        html_url=str(data.get("html_url") or ""),
        head_repo=str((data["head"].get("repo") or {}).get("full_name") or ""),
        from_fork=_from_fork(data),
    )


def _from_fork(data: Any) -> bool:
    """Whether the pull's head repository is another than its base's; a head repository
    GitHub sends as null (a fork deleted since) counts as a fork."""
    head = (data["head"].get("repo") or {}).get("full_name")
    base = (data["base"].get("repo") or {}).get("full_name")
    if not head:
        return True
    return not base or str(head).lower() != str(base).lower()
