"""GitHub's REST API over a `GitHubState`: the routes amelia and PyGithub use, answered with
GitHub's JSON.

Lists are paginated with `per_page`/`page` and GitHub's `Link` header; a refusal is
GitHub's error document (`message`, `documentation_url`, `status`, `errors`). Each handler
takes the request and the route's parts by name and returns an `Answer`; the server
(`server`) records requests, injects faults and writes the answer to the socket.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeVar
from urllib.parse import quote, unquote, urlencode

from amelia.git import unquote_path
from amelia.testing.github.actions import OtherCheckSuite, WorkflowFile, WorkflowRun
from amelia.testing.github.records import (
    ApiError,
    Comment,
    Issue,
    Json,
    Repository,
    Review,
    ReviewComment,
    User,
)
from amelia.testing.github.state import REACTIONS, GitHubState

__all__ = [
    "DOCUMENTATION_URL",
    "Answer",
    "Handler",
    "RecordedAnswer",
    "RecordedRequest",
    "RestApi",
    "error_document",
]

DOCUMENTATION_URL = "https://docs.github.com/rest"
_ROLE_NAMES = {"admin": "admin", "maintain": "maintain", "write": "write", "triage": "triage"}
# The REST API folds maintain into write and triage into read in `permission`;
# `role_name` keeps the precise role.
_LEGACY_PERMISSION = {"maintain": "write", "triage": "read"}
_Item = TypeVar("_Item")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it. Header names are lower-case."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class RecordedAnswer:
    """What the server answered a request: its status and JSON (or text) body (None for
    an answer without one, like `204` or `304`)."""

    request: RecordedRequest
    status: int
    body: Any


class Answer(NamedTuple):
    """A REST answer: status, the JSON (or text) body, and headers to add."""

    status: int
    body: Any
    headers: dict[str, str]


Handler = Callable[..., Answer]
"""A route's handler: `(request, **route parts) -> Answer`."""


def error_document(error: ApiError) -> Json:
    """GitHub's JSON for a refused request."""
    payload: Json = {
        "message": error.message,
        "documentation_url": DOCUMENTATION_URL,
        "status": str(error.status),
    }
    if error.errors is not None:
        payload["errors"] = error.errors
    return payload


def _payload(request: RecordedRequest) -> Json:
    if not isinstance(request.body, dict):
        raise ApiError(400, "Problems parsing JSON")
    return request.body


def _query(request: RecordedRequest, name: str, default: str) -> str:
    return request.query.get(name, [default])[0]


class RestApi:
    """The REST routes, rendering `state` with API URLs below `api_url()`."""

    def __init__(self, state: GitHubState, api_url: Callable[[], str]) -> None:
        self.state = state
        self._api_url = api_url

    # rendering -----------------------------------------------------------------------------

    @property
    def web_url(self) -> str:
        return self.state.web_url

    def _api(self, repository: Repository) -> str:
        return f"{self._api_url()}/repos/{repository.full_name}"

    def user_json(self, user: User) -> Json:
        return {
            "login": user.login,
            "id": user.id,
            "node_id": f"U_{user.id}",
            "type": user.type,
            "site_admin": False,
            "url": f"{self._api_url()}/users/{quote(user.login)}",
            "html_url": f"{self.web_url}/{user.login}",
            **self._user_urls(user),
        }

    def _user_urls(self, user: User) -> Json:
        """The rest of GitHub's `simple-user`: avatar and the user's API addresses."""
        api = f"{self._api_url()}/users/{quote(user.login)}"
        return {
            "avatar_url": f"https://avatars.githubusercontent.com/u/{user.id}?v=4",
            "gravatar_id": "",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
        }

    def repository_json(self, repository: Repository) -> Json:
        bare = repository.bare_path
        clone = str(bare) if bare else f"{self.web_url}/{repository.full_name}.git"
        return {
            "id": repository.id,
            "node_id": f"R_{repository.id}",
            "name": repository.name,
            "full_name": repository.full_name,
            "owner": self.user_json(self.state.users[repository.owner.lower()]),
            "private": False,
            "default_branch": repository.default_branch,
            "url": self._api(repository),
            "html_url": f"{self.web_url}/{repository.full_name}",
            "clone_url": clone,
            "permissions": {"admin": False, "push": True, "pull": True},
            **self._repository_urls(repository),
        }

    def _repository_urls(self, repository: Repository) -> Json:
        """The rest of GitHub's `minimal-repository`: the repository's API addresses (as
        URI templates, like GitHub's), and its description and fork flag."""
        api = self._api(repository)
        urls: Json = {key: api + tail for key, tail in _REPOSITORY_URLS.items()}
        return {**urls, "description": None, "fork": False}

    def issue_json(self, repository: Repository, issue: Issue) -> Json:
        api = self._api(repository)
        web = f"{self.web_url}/{repository.full_name}"
        number = issue.number
        data: Json = {
            "id": 100000 + repository.id * 1000 + number,
            "node_id": f"I_{repository.id}_{number}",
            "number": number,
            "title": issue.title,
            "body": issue.body,
            "user": self.user_json(issue.user),
            "labels": [
                {"id": abs(hash(name)) % 10**8, "name": name, "color": "ededed", "url": ""}
                for name in issue.labels
            ],
            "state": issue.state,
            "locked": False,
            "comments": sum(1 for c in repository.comments.values() if c.issue_number == number),
            "created_at": issue.created_at,
            "updated_at": issue.created_at,
            "closed_at": None,
            "author_association": "OWNER",
            "url": f"{api}/issues/{number}",
            "repository_url": api,
            "comments_url": f"{api}/issues/{number}/comments",
            "html_url": f"{web}/issues/{number}",
            "reactions": {
                "url": f"{api}/issues/{number}/reactions",
                "total_count": sum(issue.reactions.values()),
                **{content: issue.reactions.get(content, 0) for content in REACTIONS},
            },
        }
        if issue.pull is not None:
            data["pull_request"] = {
                "url": f"{api}/pulls/{number}",
                "html_url": f"{web}/pull/{number}",
                "diff_url": f"{web}/pull/{number}.diff",
            }
            data["draft"] = issue.pull.draft
        return data

    def pull_json(self, repository: Repository, issue: Issue) -> Json:
        pull = issue.pull
        assert pull is not None
        api = self._api(repository)
        web = f"{self.web_url}/{repository.full_name}"
        owner = self.user_json(self.state.users[repository.owner.lower()])

        def ref(name: str, sha: str) -> Json:
            return {
                "label": f"{repository.owner}:{name}",
                "ref": name,
                "sha": sha,
                "repo": self.repository_json(repository),
                "user": owner,
            }

        head = ref(pull.head, pull.head_sha)
        if pull.head_repo:
            head["repo"] = {**self.repository_json(repository), "full_name": pull.head_repo}
        issue_part = {k: v for k, v in self.issue_json(repository, issue).items()}
        issue_part.pop("pull_request", None)
        return {
            **issue_part,
            "url": f"{api}/pulls/{issue.number}",
            "html_url": f"{web}/pull/{issue.number}",
            "issue_url": f"{api}/issues/{issue.number}",
            "diff_url": f"{web}/pull/{issue.number}.diff",
            "draft": pull.draft,
            "merged": False,
            "mergeable": True,
            "head": head,
            "base": ref(pull.base, "1" * 40),
        }

    def comment_json(self, repository: Repository, comment: Comment) -> Json:
        api = self._api(repository)
        web = f"{self.web_url}/{repository.full_name}"
        return {
            "id": comment.id,
            "node_id": f"IC_{comment.id}",
            "body": comment.body,
            "user": self.user_json(comment.user),
            "created_at": comment.created_at,
            "updated_at": comment.updated_at,
            "author_association": "NONE",
            "url": f"{api}/issues/comments/{comment.id}",
            "issue_url": f"{api}/issues/{comment.issue_number}",
            "html_url": f"{web}/issues/{comment.issue_number}#issuecomment-{comment.id}",
        }

    def review_json(
        self, repository: Repository, number: int, review: Review, *, with_comments: bool = False
    ) -> Json:
        """A review as GitHub lists it; `with_comments` adds the inline comments its request
        carried (what tests look at)."""
        web = f"{self.web_url}/{repository.full_name}"
        data: Json = {
            "id": review.id,
            "node_id": f"PRR_{review.id}",
            "user": self.user_json(review.user),
            "body": review.body,
            "state": review.state,
            "commit_id": review.commit_id,
            "submitted_at": review.submitted_at,
            "html_url": f"{web}/pull/{number}#pullrequestreview-{review.id}",
            "pull_request_url": f"{self._api(repository)}/pulls/{number}",
        }
        if with_comments:
            data["comments"] = list(review.comments)
        return data

    def review_comment_json(
        self, repository: Repository, number: int, comment: ReviewComment
    ) -> Json:
        api = self._api(repository)
        html = f"{self.web_url}/{repository.full_name}/pull/{number}#discussion_r{comment.id}"
        data: Json = {
            "url": f"{api}/pulls/comments/{comment.id}",
            "pull_request_review_id": comment.review_id,
            "id": comment.id,
            "node_id": f"PRRC_{comment.id}",
            "diff_hunk": comment.diff_hunk,
            "path": comment.path,
            "position": comment.position,
            "original_position": comment.position,
            "commit_id": comment.commit_id,
            "original_commit_id": comment.commit_id,
            "user": self.user_json(comment.user),
            "body": comment.body,
            "created_at": comment.created_at,
            "updated_at": comment.created_at,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": f"{api}/pulls/comments/{comment.id}"},
                "html": {"href": html},
                "pull_request": {"href": f"{api}/pulls/{number}"},
            },
            "start_line": None,
            "original_start_line": None,
            "start_side": None,
            "line": comment.line,
            "original_line": comment.line,
            "side": comment.side,
            "subject_type": "line",
        }
        if comment.in_reply_to_id is not None:
            data["in_reply_to_id"] = comment.in_reply_to_id
        return data

    def _paginate(self, request: RecordedRequest, items: list[_Item]) -> Answer:
        """One page of `items` and GitHub's `Link` header (first/prev/next/last)."""
        per_page = max(1, min(100, int(_query(request, "per_page", "30"))))
        page = max(1, int(_query(request, "page", "1")))
        last = max(1, -(-len(items) // per_page))
        base = {k: v[0] for k, v in request.query.items() if k not in ("page", "per_page")}

        def link(number: int, rel: str) -> str:
            query = urlencode({**base, "per_page": per_page, "page": number})
            return f'<{self._api_url()}{request.path}?{query}>; rel="{rel}"'

        links = []
        if page > 1:
            links += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        headers = {"Link": ", ".join(links)} if links else {}
        return Answer(200, items[(page - 1) * per_page : page * per_page], headers)

    # routing -------------------------------------------------------------------------------

    def dispatch(self, request: RecordedRequest) -> Answer:
        """The answer of the route `request` takes; `ApiError` for a refusal (404 for a
        route GitHub has but this server does not serve)."""
        for method, pattern, name in _ROUTES:
            found = re.fullmatch(pattern, request.path)
            if found and method == request.method:
                handler: Handler = getattr(self, name)
                with self.state.lock:
                    return handler(request, **found.groupdict())
        raise ApiError(404, "Not Found")

    # users and repositories ----------------------------------------------------------------

    def get_authenticated_user(self, request: RecordedRequest) -> Answer:
        return Answer(200, self.user_json(self.state.token_user), {})

    def get_user(self, request: RecordedRequest, login: str) -> Answer:
        return Answer(200, self.user_json(self.state.user(unquote(login))), {})

    def get_repository(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        repository = self.state.repository(f"{owner}/{repo}")
        return Answer(200, self.repository_json(repository), {})

    def get_permission(self, request: RecordedRequest, owner: str, repo: str, login: str) -> Answer:
        user, role = self.state.permission(f"{owner}/{repo}", unquote(login))
        body = {
            "permission": _LEGACY_PERMISSION.get(role, role),
            "role_name": _ROLE_NAMES.get(role, role),
            "user": self.user_json(user),
        }
        return Answer(200, body, {})

    def get_branch(self, request: RecordedRequest, owner: str, repo: str, branch: str) -> Answer:
        full_name, name = f"{owner}/{repo}", unquote(branch)
        repository = self.state.repository(full_name)
        if not self.state.branch_exists(full_name, name):
            raise ApiError(404, "Branch not found")
        sha = "0" * 40
        commit = {"sha": sha, "url": f"{self._api(repository)}/commits/{sha}"}
        return Answer(200, {"name": name, "commit": commit, "protected": False}, {})

    def get_contents(self, request: RecordedRequest, owner: str, repo: str, path: str) -> Answer:
        """A file's content at `?ref=` (default: the default branch), base64 as GitHub
        sends it; a folder as its list of entries."""
        full_name = f"{owner}/{repo}"
        found = self.state.contents(
            full_name, unquote(path), ref=request.query.get("ref", [None])[0]
        )
        if found.kind == "dir":
            entries = [
                {"type": "file", "name": name, "path": f"{found.path}/{name}"}
                for name in found.entries
            ]
            return Answer(200, entries, {})
        api = self._api(self.state.repository(full_name))
        body = {
            "type": "file",
            "encoding": "base64",
            "size": len(found.data),
            "name": found.path.rsplit("/", 1)[-1],
            "path": found.path,
            "sha": found.sha,
            "content": base64.encodebytes(found.data).decode("ascii"),
            "url": f"{api}/contents/{quote(found.path)}?ref={quote(found.ref)}",
        }
        return Answer(200, body, {})

    # issues and comments -------------------------------------------------------------------

    def list_issues(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        """Issues and pulls, filtered by state and labels and sorted by `sort` in
        `direction` (default: newest first). Only the page served is rendered."""
        full_name = f"{owner}/{repo}"
        found = self.state.list_issues(
            full_name,
            state=_query(request, "state", "open"),
            labels=[x for x in _query(request, "labels", "").split(",") if x],
            sort=_query(request, "sort", "created"),
            direction=_query(request, "direction", "desc"),
        )
        page = self._paginate(request, found)
        repository = self.state.repository(full_name)
        return page._replace(body=[self.issue_json(repository, i) for i in page.body])

    def get_issue(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        full_name = f"{owner}/{repo}"
        issue = self.state.issue(full_name, int(number))
        return Answer(200, self.issue_json(self.state.repository(full_name), issue), {})

    def list_comments(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        full_name = f"{owner}/{repo}"
        comments = self.state.issue_comments(full_name, int(number))
        repository = self.state.repository(full_name)
        return self._paginate(request, [self.comment_json(repository, c) for c in comments])

    def create_comment(
        self, request: RecordedRequest, owner: str, repo: str, number: str
    ) -> Answer:
        full_name = f"{owner}/{repo}"
        self.state.issue(full_name, int(number))
        body = _payload(request).get("body")
        comment = self.state.create_comment(full_name, int(number), body)
        return Answer(201, self.comment_json(self.state.repository(full_name), comment), {})

    def get_comment(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        full_name = f"{owner}/{repo}"
        comment = self.state.comment(full_name, int(id))
        return Answer(200, self.comment_json(self.state.repository(full_name), comment), {})

    def edit_comment(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        full_name = f"{owner}/{repo}"
        comment = self.state.comment(full_name, int(id))
        body = str(_payload(request).get("body", comment.body))
        edited = self.state.edit_comment(full_name, comment.id, body)
        return Answer(200, self.comment_json(self.state.repository(full_name), edited), {})

    def delete_comment(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        self.state.delete_comment(f"{owner}/{repo}", int(id))
        return Answer(204, None, {})

    # pulls ---------------------------------------------------------------------------------

    def create_pull(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        full_name = f"{owner}/{repo}"
        self.state.repository(full_name)
        payload = _payload(request)
        issue = self.state.create_pull(
            full_name,
            head=str(payload.get("head", "")).split(":", 1)[-1],
            base=str(payload.get("base", "")),
            title=str(payload.get("title", "")),
            body=str(payload.get("body") or ""),
            draft=bool(payload.get("draft", False)),
        )
        return Answer(201, self.pull_json(self.state.repository(full_name), issue), {})

    def list_pulls(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        full_name = f"{owner}/{repo}"
        found = self.state.list_pulls(
            full_name, state=_query(request, "state", "open"), head=_query(request, "head", "")
        )
        repository = self.state.repository(full_name)
        return self._paginate(request, [self.pull_json(repository, i) for i in found])

    def get_pull(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        """The pull as JSON, or its diff as text when the request accepts a diff."""
        full_name = f"{owner}/{repo}"
        issue, _pull = self.state.pull(full_name, int(number))
        if "diff" in request.headers.get("accept", ""):
            diff = self.state.pull_diff(full_name, int(number))
            return Answer(200, diff, {"Content-Type": "text/plain; charset=utf-8"})
        return Answer(200, self.pull_json(self.state.repository(full_name), issue), {})

    def update_pull(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        full_name = f"{owner}/{repo}"
        self.state.pull(full_name, int(number))
        payload = _payload(request)
        changes = {
            name: str(payload[name]) if name in payload else None
            for name in ("title", "body", "state", "base")
        }
        issue = self.state.update_pull(full_name, int(number), **changes)
        return Answer(200, self.pull_json(self.state.repository(full_name), issue), {})

    def list_pull_files(
        self, request: RecordedRequest, owner: str, repo: str, number: str
    ) -> Answer:
        full_name = f"{owner}/{repo}"
        _issue, pull = self.state.pull(full_name, int(number))
        repository = self.state.repository(full_name)
        web = f"{self.web_url}/{repository.full_name}"
        files = [
            {
                "sha": "0" * 40,
                "filename": unquote_path(patched.path),
                "status": "added"
                if patched.is_added_file
                else "removed"
                if patched.is_removed_file
                else "modified",
                "additions": patched.added,
                "deletions": patched.removed,
                "changes": patched.added + patched.removed,
                "patch": "".join(str(hunk) for hunk in patched),
                "blob_url": f"{web}/blob/{pull.head_sha}/{patched.path}",
                "raw_url": f"{web}/raw/{pull.head_sha}/{patched.path}",
                "contents_url": f"{self._api(repository)}/contents/{patched.path}",
            }
            for patched in self.state.pull_files(full_name, int(number))
        ]
        return self._paginate(request, files)

    # reviews -------------------------------------------------------------------------------

    def create_review(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        full_name = f"{owner}/{repo}"
        self.state.pull(full_name, int(number))
        payload = _payload(request)
        review = self.state.create_review(
            full_name,
            int(number),
            body=payload.get("body", ""),
            event=payload.get("event", "PENDING"),
            comments=payload.get("comments") or [],
            commit_id=payload.get("commit_id") or None,
        )
        repository = self.state.repository(full_name)
        return Answer(200, self.review_json(repository, int(number), review), {})

    def list_reviews(self, request: RecordedRequest, owner: str, repo: str, number: str) -> Answer:
        full_name = f"{owner}/{repo}"
        reviews = self.state.reviews(full_name, int(number))
        repository = self.state.repository(full_name)
        rendered = [self.review_json(repository, int(number), r) for r in reviews]
        return self._paginate(request, rendered)

    def list_review_comments(
        self, request: RecordedRequest, owner: str, repo: str, number: str
    ) -> Answer:
        full_name = f"{owner}/{repo}"
        newest_first = _query(request, "direction", "asc") == "desc"
        found = self.state.review_comments(full_name, int(number), newest_first=newest_first)
        repository = self.state.repository(full_name)
        rendered = [self.review_comment_json(repository, int(number), c) for c in found]
        return self._paginate(request, rendered)

    def reply_to_review_comment(
        self, request: RecordedRequest, owner: str, repo: str, number: str, id: str
    ) -> Answer:
        full_name = f"{owner}/{repo}"
        self.state.pull(full_name, int(number))
        text = _payload(request).get("body")
        reply = self.state.reply_to_review_comment(full_name, int(number), int(id), text)
        repository = self.state.repository(full_name)
        return Answer(201, self.review_comment_json(repository, int(number), reply), {})

    # GitHub Actions and checks -------------------------------------------------------------

    def _wrapped(self, request: RecordedRequest, items: list[Json], key: str) -> Answer:
        """A page of a list GitHub wraps in an object: `{"total_count", key: [...]}`."""
        page = self._paginate(request, items)
        return page._replace(body={"total_count": len(items), key: page.body})

    def workflow_json(self, repository: Repository, workflow: WorkflowFile) -> Json:
        api = self._api(repository)
        web = f"{self.web_url}/{repository.full_name}"
        return {
            "id": workflow.id,
            "node_id": f"W_{workflow.id}",
            "name": workflow.name,
            "path": workflow.path,
            "state": "active",
            "created_at": "2024-01-01T00:00:00Z",
            "updated_at": "2024-01-01T00:00:00Z",
            "url": f"{api}/actions/workflows/{workflow.id}",
            "html_url": f"{web}/blob/{repository.default_branch}/{workflow.path}",
            "badge_url": f"{web}/workflows/{quote(workflow.name)}/badge.svg",
        }

    def run_json(self, repository: Repository, run: WorkflowRun) -> Json:
        api = self._api(repository)
        web = f"{self.web_url}/{repository.full_name}"
        return {
            "id": run.id,
            "node_id": f"WFR_{run.id}",
            "name": run.name,
            "display_title": run.name,
            "path": run.path,
            "workflow_id": run.workflow_id,
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
            "event": run.event,
            "status": run.status,
            "conclusion": run.conclusion,
            "run_number": run.id % 1000,
            "run_attempt": 1,
            "check_suite_id": run.check_suite_id,
            "created_at": run.created_at,
            "updated_at": run.created_at,
            "url": f"{api}/actions/runs/{run.id}",
            "html_url": f"{web}/actions/runs/{run.id}",
            "jobs_url": f"{api}/actions/runs/{run.id}/jobs",
            "logs_url": f"{api}/actions/runs/{run.id}/logs",
            "workflow_url": f"{api}/actions/workflows/{run.workflow_id}",
            "check_suite_url": f"{api}/check-suites/{run.check_suite_id}",
            "cancel_url": f"{api}/actions/runs/{run.id}/cancel",
            "rerun_url": f"{api}/actions/runs/{run.id}/rerun",
            "artifacts_url": f"{api}/actions/runs/{run.id}/artifacts",
            "pull_requests": [],
            "head_commit": self._head_commit(repository, run.head_sha),
            "repository": self.repository_json(repository),
            "head_repository": self.repository_json(repository),
        }

    def _head_commit(self, repository: Repository, sha: str) -> Json | None:
        """GitHub's `simple-commit` of `sha` (None when the commit is not there)."""
        commit = self.state.actions(repository.full_name).commit(sha)
        if commit is None:
            return None
        return {
            "id": commit["id"],
            "tree_id": commit["tree_id"],
            "message": commit["message"],
            "timestamp": commit["timestamp"],
            "author": {"name": commit["author_name"], "email": commit["author_email"]},
            "committer": {"name": commit["committer_name"], "email": commit["committer_email"]},
        }

    def job_json(self, repository: Repository, run: WorkflowRun) -> Json:
        job = run.job
        web = f"{self.web_url}/{repository.full_name}"
        return {
            "id": job.id,
            "run_id": run.id,
            "node_id": f"CR_{job.id}",
            "name": job.name,
            "workflow_name": run.name,
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
            "status": job.status,
            "conclusion": job.conclusion,
            "started_at": run.created_at,
            "completed_at": run.created_at if job.status == "completed" else None,
            "url": f"{self._api(repository)}/actions/jobs/{job.id}",
            "html_url": f"{web}/actions/runs/{run.id}/job/{job.id}",
            "run_url": f"{self._api(repository)}/actions/runs/{run.id}",
            "check_run_url": f"{self._api(repository)}/check-runs/{job.id}",
            "labels": ["ubuntu-latest"],
            "created_at": run.created_at,
            "runner_id": 1,
            "runner_name": "GitHub Actions 1",
            "runner_group_id": 2,
            "runner_group_name": "GitHub Actions",
            "steps": [
                {"name": name, "status": status, "conclusion": conclusion, "number": number}
                for number, (name, status, conclusion) in enumerate(job.steps, start=1)
            ],
        }

    def _app(self) -> Json:
        """GitHub Actions as GitHub describes the app of a check suite or run."""
        owner = {"login": "github", "id": 9919, "type": "Organization"}
        return {
            "id": 15368,
            "slug": "github-actions",
            "node_id": "MDM6QXBwMTUzNjg=",
            "name": "GitHub Actions",
            "description": "Automate your workflow from idea to production",
            "owner": {
                **owner,
                "node_id": "MDEyOk9yZ2FuaXphdGlvbjk5MTk=",
                "site_admin": False,
                "url": f"{self._api_url()}/users/github",
                "html_url": "https://github.com/github",
                **self._user_urls(User(login="github", id=9919, type="Organization")),
            },
            "external_url": "https://help.github.com/en/actions",
            "html_url": "https://github.com/apps/github-actions",
            "created_at": "2018-07-30T09:30:17Z",
            "updated_at": "2024-04-10T20:33:16Z",
            "permissions": {"actions": "write", "checks": "write", "contents": "write"},
            "events": ["check_run", "check_suite", "push", "pull_request", "workflow_dispatch"],
        }

    def check_suite_json(self, repository: Repository, run: WorkflowRun) -> Json:
        return {
            "id": run.check_suite_id,
            "node_id": f"CS_{run.check_suite_id}",
            "head_branch": run.head_branch,
            "head_sha": run.head_sha,
            "status": run.status,
            "conclusion": run.conclusion,
            "app": self._app(),
            "latest_check_runs_count": 1,
            "before": None,
            "after": run.head_sha,
            "created_at": run.created_at,
            "updated_at": run.created_at,
            "pull_requests": [],
            "head_commit": self._head_commit(repository, run.head_sha),
            "repository": self.repository_json(repository),
            "url": f"{self._api(repository)}/check-suites/{run.check_suite_id}",
            "check_runs_url": (
                f"{self._api(repository)}/check-suites/{run.check_suite_id}/check-runs"
            ),
        }

    def _other_app(self, slug: str) -> Json:
        app = self._app()
        return {**app, "id": 900_000 + len(slug), "slug": slug, "name": slug, "events": []}

    def other_suite_json(self, repository: Repository, suite: OtherCheckSuite) -> Json:
        return {
            "id": suite.id,
            "node_id": f"CS_{suite.id}",
            "head_branch": None,
            "head_sha": suite.head_sha,
            "status": suite.status,
            "conclusion": suite.conclusion,
            "app": self._other_app(suite.app),
            "latest_check_runs_count": 1,
            "url": f"{self._api(repository)}/check-suites/{suite.id}",
            "check_runs_url": f"{self._api(repository)}/check-suites/{suite.id}/check-runs",
            "before": None,
            "after": suite.head_sha,
            "created_at": suite.created_at,
            "updated_at": suite.created_at,
            "pull_requests": [],
            "head_commit": self._head_commit(repository, suite.head_sha),
            "repository": self.repository_json(repository),
        }

    def other_run_json(self, repository: Repository, suite: OtherCheckSuite) -> Json:
        """The one check run of another app's suite (its id is the suite's plus one)."""
        run_id = suite.id + 1
        return {
            "id": run_id,
            "node_id": f"CR_{run_id}",
            "name": suite.name,
            "head_sha": suite.head_sha,
            "status": suite.status,
            "conclusion": suite.conclusion,
            "app": self._other_app(suite.app),
            "check_suite": {"id": suite.id},
            "html_url": f"{self.web_url}/{repository.full_name}/runs/{run_id}",
            "details_url": suite.details_url or None,
            "url": f"{self._api(repository)}/check-runs/{run_id}",
            "external_id": "",
            "started_at": suite.created_at,
            "completed_at": suite.created_at if suite.status == "completed" else None,
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": f"{self._api(repository)}/check-runs/{run_id}/annotations",
            },
            "pull_requests": [],
        }

    def check_run_json(self, repository: Repository, run: WorkflowRun) -> Json:
        job = run.job
        web = f"{self.web_url}/{repository.full_name}"
        return {
            "id": job.id,
            "node_id": f"CR_{job.id}",
            "name": job.name,
            "head_sha": run.head_sha,
            "status": job.status,
            "conclusion": job.conclusion,
            "app": self._app(),
            "check_suite": {"id": run.check_suite_id},
            "external_id": str(job.id),
            "started_at": run.created_at,
            "completed_at": run.created_at if job.status == "completed" else None,
            "output": {
                "title": None,
                "summary": None,
                "text": None,
                "annotations_count": 0,
                "annotations_url": f"{self._api(repository)}/check-runs/{job.id}/annotations",
            },
            "pull_requests": [],
            "html_url": f"{web}/actions/runs/{run.id}/job/{job.id}",
            "details_url": f"{web}/actions/runs/{run.id}/job/{job.id}",
            "url": f"{self._api(repository)}/check-runs/{job.id}",
        }

    def list_workflows(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        full_name = f"{owner}/{repo}"
        repository = self.state.repository(full_name)
        found = self.state.actions(full_name).workflows()
        rendered = [self.workflow_json(repository, w) for w in found]
        return self._wrapped(request, rendered, "workflows")

    def dispatch_workflow(
        self, request: RecordedRequest, owner: str, repo: str, workflow: str
    ) -> Answer:
        actions = self.state.actions(f"{owner}/{repo}", write=True)
        actions.dispatch(unquote(workflow), _payload(request).get("ref"))
        return Answer(204, None, {})

    def list_runs(self, request: RecordedRequest, owner: str, repo: str) -> Answer:
        full_name = f"{owner}/{repo}"
        repository = self.state.repository(full_name)
        found = self.state.actions(full_name).read_runs(
            request.query.get("head_sha", [None])[0],
            request.query.get("event", [None])[0],
            request.query.get("branch", [None])[0],
        )
        rendered = [self.run_json(repository, run) for run in found]
        return self._wrapped(request, rendered, "workflow_runs")

    def get_run(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        full_name = f"{owner}/{repo}"
        run = self.state.actions(full_name).run(int(id))
        return Answer(200, self.run_json(self.state.repository(full_name), run), {})

    def list_jobs(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        full_name = f"{owner}/{repo}"
        run = self.state.actions(full_name).run(int(id))
        rendered = [self.job_json(self.state.repository(full_name), run)]
        return self._wrapped(request, rendered, "jobs")

    def job_logs(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        """302 to a short-lived address of the log, as GitHub answers."""
        self.state.actions(f"{owner}/{repo}").job(int(id))
        location = f"{self._api_url()}/_job-logs/{owner}/{repo}/{id}?sig=local"
        return Answer(302, None, {"Location": location})

    def job_log_blob(self, request: RecordedRequest, owner: str, repo: str, id: str) -> Answer:
        """Where the log redirect points: the log as plain text, no token needed."""
        with self.state.lock:
            actions = self.state.actions(f"{owner}/{repo}")
        _run, job = actions.job(int(id))
        return Answer(200, job.log, {"Content-Type": "text/plain; charset=utf-8"})

    def _runs_of(self, full_name: str, ref: str) -> list[WorkflowRun]:
        return self.state.actions(full_name).read_runs(unquote(ref))

    def list_check_suites(
        self, request: RecordedRequest, owner: str, repo: str, ref: str
    ) -> Answer:
        full_name = f"{owner}/{repo}"
        repository = self.state.repository(full_name)
        runs = self._runs_of(full_name, ref)
        rendered = [self.check_suite_json(repository, run) for run in runs]
        rendered += [self.other_suite_json(repository, o) for o in self._others(full_name, ref)]
        return self._wrapped(request, rendered, "check_suites")

    def _others(self, full_name: str, ref: str) -> list[OtherCheckSuite]:
        suites = self.state.actions(full_name).other_suites
        return [suite for suite in suites if suite.head_sha == unquote(ref)]

    def list_check_runs(self, request: RecordedRequest, owner: str, repo: str, ref: str) -> Answer:
        full_name = f"{owner}/{repo}"
        repository = self.state.repository(full_name)
        runs = self._runs_of(full_name, ref)
        rendered = [self.check_run_json(repository, run) for run in runs]
        rendered += [self.other_run_json(repository, o) for o in self._others(full_name, ref)]
        return self._wrapped(request, rendered, "check_runs")

    def graphql(self, request: RecordedRequest) -> Answer:
        from amelia.testing.github.graphql import execute

        payload = _payload(request)
        query = str(payload.get("query") or "")
        variables = payload.get("variables") or {}
        return Answer(200, execute(self.state, query, variables), {})


_REPOSITORY_URLS = {
    "archive_url": "/{archive_format}{/ref}",
    "assignees_url": "/assignees{/user}",
    "blobs_url": "/git/blobs{/sha}",
    "branches_url": "/branches{/branch}",
    "collaborators_url": "/collaborators{/collaborator}",
    "comments_url": "/comments{/number}",
    "commits_url": "/commits{/sha}",
    "compare_url": "/compare/{base}...{head}",
    "contents_url": "/contents/{+path}",
    "contributors_url": "/contributors",
    "deployments_url": "/deployments",
    "downloads_url": "/downloads",
    "events_url": "/events",
    "forks_url": "/forks",
    "git_commits_url": "/git/commits{/sha}",
    "git_refs_url": "/git/refs{/sha}",
    "git_tags_url": "/git/tags{/sha}",
    "hooks_url": "/hooks",
    "issue_comment_url": "/issues/comments{/number}",
    "issue_events_url": "/issues/events{/number}",
    "issues_url": "/issues{/number}",
    "keys_url": "/keys{/key_id}",
    "labels_url": "/labels{/name}",
    "languages_url": "/languages",
    "merges_url": "/merges",
    "milestones_url": "/milestones{/number}",
    "notifications_url": "/notifications{?since,all,participating}",
    "pulls_url": "/pulls{/number}",
    "releases_url": "/releases{/id}",
    "stargazers_url": "/stargazers",
    "statuses_url": "/statuses/{sha}",
    "subscribers_url": "/subscribers",
    "subscription_url": "/subscription",
    "tags_url": "/tags",
    "teams_url": "/teams",
    "trees_url": "/git/trees{/sha}",
}
"""The API addresses of a repository GitHub sends with it, after its own."""

_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_ROUTES: list[tuple[str, str, str]] = [
    ("GET", r"/user", "get_authenticated_user"),
    ("GET", r"/users/(?P<login>[^/]+)", "get_user"),
    ("GET", _REPO, "get_repository"),
    ("GET", _REPO + r"/issues", "list_issues"),
    ("GET", _REPO + r"/issues/(?P<number>\d+)", "get_issue"),
    ("GET", _REPO + r"/issues/(?P<number>\d+)/comments", "list_comments"),
    ("POST", _REPO + r"/issues/(?P<number>\d+)/comments", "create_comment"),
    ("GET", _REPO + r"/issues/comments/(?P<id>\d+)", "get_comment"),
    ("PATCH", _REPO + r"/issues/comments/(?P<id>\d+)", "edit_comment"),
    ("DELETE", _REPO + r"/issues/comments/(?P<id>\d+)", "delete_comment"),
    ("GET", _REPO + r"/collaborators/(?P<login>[^/]+)/permission", "get_permission"),
    ("GET", _REPO + r"/branches/(?P<branch>.+)", "get_branch"),
    ("GET", _REPO + r"/contents/(?P<path>.+)", "get_contents"),
    ("POST", _REPO + r"/pulls", "create_pull"),
    ("GET", _REPO + r"/pulls", "list_pulls"),
    ("GET", _REPO + r"/pulls/(?P<number>\d+)", "get_pull"),
    ("PATCH", _REPO + r"/pulls/(?P<number>\d+)", "update_pull"),
    ("GET", _REPO + r"/pulls/(?P<number>\d+)/files", "list_pull_files"),
    ("POST", _REPO + r"/pulls/(?P<number>\d+)/reviews", "create_review"),
    ("GET", _REPO + r"/pulls/(?P<number>\d+)/reviews", "list_reviews"),
    ("GET", _REPO + r"/pulls/(?P<number>\d+)/comments", "list_review_comments"),
    (
        "POST",
        _REPO + r"/pulls/(?P<number>\d+)/comments/(?P<id>\d+)/replies",
        "reply_to_review_comment",
    ),
    ("GET", _REPO + r"/actions/workflows", "list_workflows"),
    ("POST", _REPO + r"/actions/workflows/(?P<workflow>[^/]+)/dispatches", "dispatch_workflow"),
    ("GET", _REPO + r"/actions/runs", "list_runs"),
    ("GET", _REPO + r"/actions/runs/(?P<id>\d+)", "get_run"),
    ("GET", _REPO + r"/actions/runs/(?P<id>\d+)/jobs", "list_jobs"),
    ("GET", _REPO + r"/actions/jobs/(?P<id>\d+)/logs", "job_logs"),
    ("GET", r"/_job-logs/(?P<owner>[^/]+)/(?P<repo>[^/]+)/(?P<id>\d+)", "job_log_blob"),
    ("GET", _REPO + r"/commits/(?P<ref>[^/]+)/check-suites", "list_check_suites"),
    ("GET", _REPO + r"/commits/(?P<ref>[^/]+)/check-runs", "list_check_runs"),
    ("POST", r"/graphql", "graphql"),
]
"""(method, path regex, handler method) of every route served."""
