"""The blocking half of the GitHub adapter: each port operation as PyGithub calls.

PyGithub is synchronous, so `amelia.github.client.GitHubClient` runs these methods in a
worker thread. Every request goes through the `Retrier` (bounded retries, typed errors),
and results are read into plain models inside the retried call, so no lazy PyGithub object
can make an unretried request later.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Sequence
from functools import partial
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from github import Auth, Github
from github.IssueComment import IssueComment
from github.PaginatedList import PaginatedList
from github.PullRequestComment import PullRequestComment
from github.PullRequestReview import PullRequestReview
from github.Repository import Repository
from github.Requester import Requester
from loguru import logger

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
from amelia.github.options import DEFAULT_API_URL, DEFAULT_TIMEOUT, RetryPolicy, ReviewEvent
from amelia.github.payloads import (
    comment_info,
    issue_info,
    pull_info,
    raw,
    review_comment_info,
    review_info,
)
from amelia.github.retrying import Retrier
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    WorkflowInfo,
    WorkflowRunInfo,
    check_run_info,
    check_suite_info,
    job_info,
    workflow_info,
    workflow_run_info,
)

__all__ = ["PyGithubCalls"]

T = TypeVar("T")


class PyGithubCalls:
    """One repository's GitHub API through PyGithub, blocking, with bounded retries."""

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
        self.retrier = Retrier(policy=policy, sleep=sleep, clock=clock)
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

    def close(self) -> None:
        self._gh.close()

    def _call(self, operation: str, fn: Callable[[], T]) -> T:
        return self.retrier.call(operation, fn)

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

    def get_file(self, path: str, ref: str) -> bytes | None:
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
        return self._call(f"get issue #{number}", lambda: issue_info(repo.get_issue(number)))

    def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        data = self._call(
            f"comment on #{issue_number}",
            lambda: self._request("POST", f"/issues/{issue_number}/comments", {"body": body}),
        )
        return comment_info(data)

    def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        data = self._call(
            f"edit comment {comment_id}",
            lambda: self._request("PATCH", f"/issues/comments/{comment_id}", {"body": body}),
        )
        return comment_info(data)

    def delete_comment(self, comment_id: int) -> None:
        self._call(
            f"delete comment {comment_id}",
            lambda: self._request("DELETE", f"/issues/comments/{comment_id}"),
        )

    def _list_comments(self, issue_number: int) -> list[CommentInfo]:
        operation = f"list comments of #{issue_number}"
        path = f"/issues/{issue_number}/comments"
        return [comment_info(c) for c in self._list_pages(operation, IssueComment, path)]

    def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        for comment in self._list_comments(issue_number):
            if marker in comment.body:
                return comment
        return None

    def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        """Oldest first (GitHub's `sort=created&direction=asc`), one request per page.

        The repository's issue list, not the search API: search stops at 1,000 results and
        has a much smaller rate limit. GitHub's list holds pull requests too (they are
        issues to it), so labelled pulls cost room on the pages but are left out here.
        """
        # A lazy repository object: listing needs its URL, not a request for its details.
        repository = self._gh.withLazy(True).get_repo(self.full_name)
        pages = repository.get_issues(state=state, labels=[label], sort="created", direction="asc")
        listed = [issue_info(i) for i in self._collect(f"list issues labelled {label}", pages)]
        return [issue for issue in listed if not issue.is_pull_request]

    def _list_pages(self, operation: str, kind: type[Any], path: str) -> list[dict[str, Any]]:
        """The JSON of every item of the paginated list at `path` below the repository."""
        repo = self._repository()
        pages = PaginatedList(kind, repo.requester, f"{repo.url}{path}", None)
        return [raw(item) for item in self._collect(operation, pages)]

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
        return pull_info(data)

    def create_pull(self, head: str, base: str, title: str, body: str, *, draft: bool) -> PullInfo:
        payload = {"head": head, "base": base, "title": title, "body": body, "draft": draft}
        owner = self.full_name.split("/", 1)[0]
        query = urlencode({"state": "open", "head": f"{owner}:{head}", "per_page": 1})

        def existing() -> Any | None:
            found = self._request("GET", f"/pulls?{query}")
            return found[0] if isinstance(found, list) and found else None

        data = self.retrier.create_once(
            f"open pull for {head}", lambda: self._request("POST", "/pulls", payload), existing
        )
        return pull_info(data)

    def find_open_pull(self, head: str) -> PullInfo | None:
        repo = self._repository()
        owner = self.full_name.split("/", 1)[0]
        pulls = self._call(
            f"find pull for {head}", lambda: repo.get_pulls(state="open", head=f"{owner}:{head}")
        )
        found = self._collect(f"find pull for {head}", pulls)
        return pull_info(raw(found[0])) if found else None

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        changes = {k: v for k, v in {"title": title, "body": body}.items() if v is not None}
        data = self._call(
            f"update pull #{number}", lambda: self._request("PATCH", f"/pulls/{number}", changes)
        )
        return pull_info(data)

    def get_pull_diff(self, number: int) -> str | None:
        """GitHub answers 406 (`too_large`) for a diff over 20,000 lines (and lists at most
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

        data = self.retrier.create_once(
            f"review pull #{pull_number}",
            lambda: self._request("POST", f"/pulls/{pull_number}/reviews", payload),
            existing,
        )
        return review_info(data)

    def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        operation = f"list reviews of pull #{pull_number}"
        path = f"/pulls/{pull_number}/reviews"
        return [review_info(r) for r in self._list_pages(operation, PullRequestReview, path)]

    def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        operation = f"list review comments of pull #{pull_number}"
        path = f"/pulls/{pull_number}/comments"
        pages = self._list_pages(operation, PullRequestComment, path)
        return [review_comment_info(c) for c in pages]

    def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        def existing() -> Any | None:
            # Newest first: a reply just made is on the first page.
            query = "sort=created&direction=desc&per_page=100"
            found = self._request("GET", f"/pulls/{pull_number}/comments?{query}")
            for comment in found if isinstance(found, list) else []:
                if comment.get("in_reply_to_id") == comment_id and comment.get("body") == body:
                    return comment
            return None

        path = f"/pulls/{pull_number}/comments/{comment_id}/replies"
        data = self.retrier.create_once(
            f"reply to review comment {comment_id}",
            lambda: self._request("POST", path, {"body": body}),
            existing,
        )
        return review_comment_info(data)

    def _graphql(self, operation: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        requester = self._gh.requester
        _, data = self._call(operation, lambda: requester.graphql_query(query, variables))
        return dict(data.get("data") or {})

    def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        """GraphQL: REST does not say whether a thread is resolved."""
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
        """A token that may not resolve threads raises `GitHubError` (GitHub answers with a
        GraphQL error)."""
        data = self._graphql(
            f"resolve review thread {thread_id}", _RESOLVE_MUTATION, {"threadId": thread_id}
        )
        thread = (data.get("resolveReviewThread") or {}).get("thread") or {}
        return bool(thread.get("isResolved"))

    # GitHub Actions and checks -------------------------------------------------------------

    def _wrapped_pages(self, operation: str, path: str, key: str) -> list[dict[str, Any]]:
        """Every item of a list GitHub wraps in an object (`{"total_count", key: [...]}`),
        page by page, each page retried on its own."""
        items: list[dict[str, Any]] = []
        separator = "&" if "?" in path else "?"
        page = 1
        while True:
            url = f"{path}{separator}{urlencode({'per_page': _PAGE, 'page': page})}"
            data = self._call(operation, partial(self._request, "GET", url))
            found = list((data or {}).get(key) or ()) if isinstance(data, dict) else []
            items += found
            if len(found) < _PAGE:
                return items
            page += 1

    def _conditional(
        self, operation: str, path: str, etag: str | None
    ) -> tuple[str | None, dict[str, Any] | None]:
        """GET `path` with `If-None-Match: etag`: the new ETag, and the JSON (None for GitHub's
        304 Not Modified, which costs no rate limit)."""
        repo = self._repository()
        headers = {"If-None-Match": etag} if etag else None

        def get() -> tuple[str | None, dict[str, Any] | None]:
            answer_headers, data = repo.requester.requestJsonAndCheck(
                "GET", f"{repo.url}{path}", headers=headers
            )
            if data is None and etag:
                return etag, None
            return answer_headers.get("etag"), data if isinstance(data, dict) else {}

        return self._call(operation, get)

    def list_workflows(self) -> list[WorkflowInfo]:
        found = self._wrapped_pages("list workflows", "/actions/workflows", "workflows")
        return [workflow_info(item) for item in found]

    def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        query = {"head_sha": head_sha, "per_page": _PAGE, **({"event": event} if event else {})}
        path = f"/actions/runs?{urlencode(query)}"
        new_etag, data = self._conditional(f"list workflow runs of {head_sha[:12]}", path, etag)
        if data is None:
            return Polled(etag=new_etag)
        runs = tuple(workflow_run_info(run) for run in data.get("workflow_runs") or ())
        return Polled(etag=new_etag, items=runs)

    def list_jobs(self, run_id: int) -> list[JobInfo]:
        found = self._wrapped_pages(
            f"list jobs of run {run_id}", f"/actions/runs/{run_id}/jobs", "jobs"
        )
        return [job_info(item) for item in found]

    def get_job_log(self, job_id: int) -> str | None:
        """GitHub answers `302 Found` with a short-lived address of the log; the request
        there carries no token when it is on another host."""
        repo = self._repository()
        url = f"{repo.url}/actions/jobs/{job_id}/logs"

        def read() -> str:
            status, headers, body = repo.requester.requestJson("GET", url, follow_302_redirect=True)
            if status >= HTTPStatus.BAD_REQUEST:
                try:
                    data: Any = json.loads(body) if body else None
                except ValueError:
                    data = {"message": body}
                raise Requester.createException(status, headers, data)
            return body

        try:
            return self._call(f"get log of job {job_id}", read)
        except GitHubNotFoundError:
            return None

    def list_check_suites(self, ref: str, *, etag: str | None = None) -> Polled[CheckSuiteInfo]:
        path = f"/commits/{quote(ref, safe='')}/check-suites?per_page={_PAGE}"
        new_etag, data = self._conditional(f"list check suites of {ref[:12]}", path, etag)
        if data is None:
            return Polled(etag=new_etag)
        suites = tuple(check_suite_info(suite) for suite in data.get("check_suites") or ())
        return Polled(etag=new_etag, items=suites)

    def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        found = self._wrapped_pages(
            f"list check runs of {ref[:12]}",
            f"/commits/{quote(ref, safe='')}/check-runs",
            "check_runs",
        )
        return [check_run_info(item) for item in found]

    def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        """`workflow_dispatch` on `ref` (GitHub answers 204). An attempt whose answer was
        lost may have started a run: the wait reads the latest run of each workflow, so a
        second one changes nothing."""
        path = f"/actions/workflows/{workflow_id}/dispatches"
        self._call(
            f"dispatch workflow {workflow_id} on {ref}",
            lambda: self._request("POST", path, {"ref": ref}),
        )


_PAGE = 100
"""Items per page of the lists GitHub wraps in an object."""

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
