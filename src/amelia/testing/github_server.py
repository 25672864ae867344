"""A stateful local GitHub REST server for tests: PyGithub talks to it like to api.github.com.

It keeps repositories, issues, comments, pulls, reviews and collaborators' permissions in
memory, records every request, validates review comments against a pull's diff like GitHub
does, sorts issue lists as `sort` and `direction` ask and counts their reactions,
paginates with GitHub's `Link` headers, refuses big diffs with 406 `too_large` and
lists at most 3,000 files of a pull like GitHub, and can inject faults (error statuses, rate
limits, connection resets, stalls) per route so retry behaviour can be tested for real.

A review's inline comments become review comments, each starting a thread: they are listed
(`GET …/pulls/{n}/comments`), answered (`POST …/pulls/{n}/comments/{id}/replies`), and their
threads are read and resolved through `POST /graphql` (`pullRequest.reviewThreads`,
`resolveReviewThread`), as GitHub's REST and GraphQL APIs describe them. `viewer { login }`
names the token's user (`github-actions[bot]` by default, as for the job's token), and
`oauth_scopes` makes every answer carry `X-OAuth-Scopes`, as for a classic personal access
token.

A repository registered with `bare_path` is also served over git's smart HTTP protocol at
`<url>/<owner>/<name>` (what `GITHUB_SERVER_URL/<repo>` names on a runner), through
`git http-backend`, so the bare repository's hooks run as GitHub's rules would: anyone may
fetch, and a push needs the repository's `git_token` as the password of HTTP basic auth
(`x-access-token:<token>`, as actions/checkout sends it); without it the answer is 401.
Every git request is recorded in `git_requests`, and takes injected faults like the API's.

    with FakeGitHubServer() as server:
        server.add_repo("octo/app", bare_path=origin)
        server.add_issue("octo/app", title="Crash", body="…", labels=["amelia"])
        client = GitHubClient(token="t", repo="octo/app", base_url=server.url)
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import re
import socket
import struct
import threading
import time
from collections import Counter, defaultdict, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

from unidiff.patch import PatchSet

from amelia.errors import GitError
from amelia.git import run_git, run_git_bytes, run_git_service, unquote_path
from amelia.testing.local_server import LocalServer, QuietHandler

__all__ = [
    "MAX_DIFF_LINES",
    "MAX_PULL_FILES",
    "REACTIONS",
    "SECONDARY_RATE_LIMIT_MESSAGE",
    "FakeGitHubServer",
    "Fault",
    "GitRequest",
    "Handler",
    "Json",
    "RecordedRequest",
]


SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)
_DOCS = "https://docs.github.com/rest"
MAX_DIFF_LINES = 20_000
"""GitHub answers a diff request for a longer diff with 406 `too_large`."""
MAX_PULL_FILES = 3_000
"""`pulls/{n}/files` lists at most this many files of a pull request."""
Json = dict[str, Any]
_Item = TypeVar("_Item")
REACTIONS = ("+1", "-1", "laugh", "confused", "heart", "hooray", "eyes", "rocket")
"""The reaction contents GitHub counts in an issue's `reactions` rollup."""
_ISSUE_SORTS = ("created", "updated", "comments")
_DIRECTIONS = ("asc", "desc")


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it. Header names are lower-case."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


@dataclass(frozen=True)
class Fault:
    """What to do instead of answering one request.

    `kind="status"` answers `status` with `headers` and a JSON `message`; `"reset"` drops the
    connection without a response; `"stall"` waits `stall_seconds` and then drops it;
    `"delay"` waits `stall_seconds` and then answers normally (a slow GitHub, or two
    clients racing); `"lost"` carries the request out, then waits `stall_seconds` and drops
    the connection (GitHub acted, but its answer never arrived).
    """

    kind: Literal["status", "reset", "stall", "delay", "lost"] = "status"
    status: int = 502
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "Server Error"
    stall_seconds: float = 5.0

    @classmethod
    def retry_after(cls, seconds: int, status: int = 429) -> Fault:
        return cls(
            status=status, headers={"Retry-After": str(seconds)}, message="Too Many Requests"
        )

    @classmethod
    def rate_limit_reset(cls, reset_epoch: int) -> Fault:
        return cls(
            status=403,
            headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset_epoch)},
            message="API rate limit exceeded for installation.",
        )

    @classmethod
    def secondary_rate_limit(cls) -> Fault:
        return cls(status=403, message=SECONDARY_RATE_LIMIT_MESSAGE)


@dataclass
class _User:
    login: str
    type: str = "User"
    id: int = 0


@dataclass
class _Comment:
    id: int
    issue_number: int
    body: str
    user: _User
    created_at: str
    updated_at: str


@dataclass
class _ReviewComment:
    id: int
    review_id: int
    path: str
    line: int
    side: str
    body: str
    user: _User
    commit_id: str
    created_at: str
    in_reply_to_id: int | None = None
    diff_hunk: str = ""
    position: int | None = None


@dataclass
class _Thread:
    id: str
    comment_ids: list[int]
    is_resolved: bool = False
    resolved_by: str | None = None


@dataclass
class _Pull:
    number: int
    head: str
    base: str
    head_sha: str
    draft: bool
    diff: str | None = None
    head_repo: str | None = None
    """owner/name of a fork holding the head branch (None: this repository)."""
    reviews: list[Json] = field(default_factory=list)
    review_comments: dict[int, _ReviewComment] = field(default_factory=dict)
    threads: list[_Thread] = field(default_factory=list)


@dataclass
class _Issue:
    number: int
    title: str
    body: str
    user: _User
    labels: list[str]
    state: str
    created_at: str
    pull: _Pull | None = None
    reactions: dict[str, int] = field(default_factory=dict)
    """Reaction content (`+1`, `heart`, …) → how many people gave it."""


@dataclass
class _Repo:
    owner: str
    name: str
    default_branch: str
    bare_path: Path | None
    id: int
    issues: dict[int, _Issue] = field(default_factory=dict)
    comments: dict[int, _Comment] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    branches: set[str] = field(default_factory=set)
    git_token: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True)
class GitRequest:
    """One request of git's smart HTTP protocol: which service, and whether it carried the
    repository's token."""

    method: str
    path: str
    service: str
    authenticated: bool


class _HttpError(Exception):
    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


_ROLE_NAMES = {"admin": "admin", "maintain": "maintain", "write": "write", "triage": "triage"}
# The REST API folds maintain into write and triage into read in `permission`;
# `role_name` keeps the precise role.
_LEGACY_PERMISSION = {"maintain": "write", "triage": "read"}

Handler = Callable[
    ["FakeGitHubServer", re.Match[str], RecordedRequest], tuple[int, Any, dict[str, str]]
]


class FakeGitHubServer(LocalServer):
    """A GitHub REST API on 127.0.0.1 with an ephemeral port, served from a background thread."""

    def __init__(self, token_user: str = "github-actions[bot]") -> None:  # noqa: S107
        self.requests: list[RecordedRequest] = []
        self.git_requests: list[GitRequest] = []
        self.token_user = _User(token_user, "Bot" if token_user.endswith("[bot]") else "User", 1)
        self._repos: dict[str, _Repo] = {}
        self._users: dict[str, _User] = {token_user.lower(): self.token_user}
        self._faults: dict[str, deque[Fault]] = defaultdict(deque)
        self._ids = iter(range(1000, 10**9))
        self._lock = threading.RLock()
        self.max_diff_lines = MAX_DIFF_LINES
        """Diffs longer than this are refused with 406, like GitHub's (tests may lower it)."""
        self.forbid_resolving = False
        """True: `resolveReviewThread` answers FORBIDDEN, as for a token that may not."""
        self.web_url = "https://github.com"
        """Where its `html_url`s point (a GitHub Enterprise Server answers with its own host)."""
        self.oauth_scopes: tuple[str, ...] | None = None
        """The token's OAuth scopes, sent as `X-OAuth-Scopes` with every API answer as
        GitHub does for a classic personal access token (None: no header, as for the job's
        token or an App's)."""
        super().__init__(
            type("_BoundHandler", (_RequestHandler,), {"fake": self}), name="fake-github"
        )

    # state set-up --------------------------------------------------------------------------

    def add_user(self, login: str, user_type: str = "User") -> None:
        with self._lock:
            self._users[login.lower()] = _User(login, user_type, next(self._ids))

    def add_repo(
        self,
        full_name: str,
        default_branch: str = "main",
        bare_path: Path | None = None,
        branches: tuple[str, ...] = (),
        git_token: str | None = None,
    ) -> None:
        """Register a repository; with `bare_path` branches are read from that bare repo,
        which is served over git's HTTP protocol; a push needs `git_token`."""
        owner, name = full_name.split("/", 1)
        with self._lock:
            self._repos[full_name.lower()] = _Repo(
                owner,
                name,
                default_branch,
                bare_path,
                next(self._ids),
                branches=set(branches),
                git_token=git_token,
            )
            self._users.setdefault(owner.lower(), _User(owner, "Organization", next(self._ids)))

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """Give `login` one of admin, maintain, write, triage, read or none."""
        with self._lock:
            self._repo(full_name).permissions[login.lower()] = permission
            self._users.setdefault(login.lower(), _User(login, "User", next(self._ids)))

    def add_issue(
        self,
        full_name: str,
        title: str,
        body: str = "",
        user: str = "octocat",
        labels: tuple[str, ...] | list[str] = (),
        state: str = "open",
        *,
        created_at: str | None = None,
        reactions: Mapping[str, int] | None = None,
    ) -> int:
        """A new issue, numbered after the last one; `created_at` (GitHub's
        `YYYY-MM-DDTHH:MM:SSZ`, default now) and `reactions` (`{"+1": 3}`) as GitHub would
        report them."""
        with self._lock:
            repo = self._repo(full_name)
            number = len(repo.issues) + 1
            author = self._users.setdefault(user.lower(), _User(user, "User", next(self._ids)))
            repo.issues[number] = _Issue(
                number,
                title,
                body,
                author,
                list(labels),
                state,
                created_at or _now(),
                reactions=dict(reactions or {}),
            )
            return number

    def add_pull(
        self,
        full_name: str,
        head: str,
        base: str = "main",
        title: str = "Change",
        body: str = "",
        draft: bool = False,
        diff: str | None = None,
        head_sha: str = "0" * 40,
        user: str = "octocat",
        head_repo: str | None = None,
    ) -> int:
        """Register a pull; with `diff`, review comments are validated against its hunks;
        with `head_repo`, its head branch is in that fork."""
        with self._lock:
            number = self.add_issue(full_name, title, body, user)
            issue = self._repo(full_name).issues[number]
            issue.pull = _Pull(number, head, base, head_sha, draft, diff, head_repo=head_repo)
            return number

    def add_review_comment(
        self, full_name: str, number: int, *, user: str, path: str, line: int, body: str
    ) -> int:
        """A person's review comment on `line` of `path` (new side) of the pull's diff, in a
        review of its own, starting a thread; returns its id."""
        with self._lock:
            repo = self._repo(full_name)
            pull = repo.issues[number].pull
            assert pull is not None
            author = self._users.setdefault(user.lower(), _User(user, "User", next(self._ids)))
            review = _add_review(self, repo, number, pull, "", "COMMENTED")
            review["user"] = self._user_json(author)
            hunk, position = _hunk_up_to(pull.diff or "", path, line, "RIGHT")
            comment = _ReviewComment(
                next(self._ids),
                review["id"],
                path,
                line,
                "RIGHT",
                body,
                author,
                pull.head_sha,
                _now(),
                diff_hunk=hunk,
                position=position,
            )
            pull.review_comments[comment.id] = comment
            pull.threads.append(_Thread(f"PRRT_{comment.id}", [comment.id]))
            return comment.id

    def resolve_thread(self, full_name: str, number: int, comment_id: int, *, by: str) -> None:
        """`by` resolves the thread review comment `comment_id` is in, as a person does on
        the pull request's page."""
        with self._lock:
            pull = self._repo(full_name).issues[number].pull
            assert pull is not None
            (thread,) = [t for t in pull.threads if comment_id in t.comment_ids]
            thread.is_resolved, thread.resolved_by = True, by

    def push_to_pull(
        self, full_name: str, number: int, head_sha: str, diff: str | None = None
    ) -> None:
        """The pull's head moved (a push: `synchronize`); `diff` is its new diff."""
        with self._lock:
            pull = self._repo(full_name).issues[number].pull
            assert pull is not None
            pull.head_sha = head_sha
            pull.diff = diff

    def inject(self, method: str, path_pattern: str, *faults: Fault) -> None:
        """Queue `faults` for requests whose `METHOD path` fully matches the regex given."""
        with self._lock:
            self._faults[f"{method.upper()} {path_pattern}"].extend(faults)

    # state inspection ----------------------------------------------------------------------

    def comments(self, full_name: str, issue_number: int) -> list[str]:
        with self._lock:
            repo = self._repo(full_name)
            return [c.body for c in repo.comments.values() if c.issue_number == issue_number]

    def reviews(self, full_name: str, pull_number: int) -> list[Json]:
        with self._lock:
            pull = self._repo(full_name).issues[pull_number].pull
            return list(pull.reviews) if pull else []

    def review_comments(self, full_name: str, pull_number: int) -> list[Json]:
        """The pull's review comments as `GET …/pulls/{n}/comments` lists them."""
        with self._lock:
            repo = self._repo(full_name)
            pull = repo.issues[pull_number].pull
            if pull is None:
                return []
            return [
                self._review_comment_json(repo, pull_number, c)
                for c in pull.review_comments.values()
            ]

    def threads(self, full_name: str, pull_number: int) -> list[Json]:
        """The pull's review threads: node id, resolved or not, by whom, comment ids."""
        with self._lock:
            pull = self._repo(full_name).issues[pull_number].pull
            return [
                {
                    "id": t.id,
                    "isResolved": t.is_resolved,
                    "resolvedBy": t.resolved_by,
                    "comment_ids": list(t.comment_ids),
                }
                for t in (pull.threads if pull else [])
            ]

    def pulls(self, full_name: str) -> list[Json]:
        with self._lock:
            repo = self._repo(full_name)
            return [self._pull_json(repo, i) for i in repo.issues.values() if i.pull]

    def requests_to(self, method: str, path_pattern: str) -> list[RecordedRequest]:
        return [
            r
            for r in list(self.requests)
            if r.method == method.upper() and re.fullmatch(path_pattern, r.path)
        ]

    # JSON rendering ------------------------------------------------------------------------

    def _repo(self, full_name: str) -> _Repo:
        repo = self._repos.get(full_name.lower())
        if repo is None:
            raise _HttpError(404, "Not Found")
        return repo

    def _user_json(self, user: _User) -> Json:
        return {
            "login": user.login,
            "id": user.id,
            "node_id": f"U_{user.id}",
            "type": user.type,
            "site_admin": False,
            "url": f"{self.url}/users/{quote(user.login)}",
            "html_url": f"{self.web_url}/{user.login}",
        }

    def _repo_json(self, repo: _Repo) -> Json:
        clone = str(repo.bare_path) if repo.bare_path else f"{self.web_url}/{repo.full_name}.git"
        return {
            "id": repo.id,
            "node_id": f"R_{repo.id}",
            "name": repo.name,
            "full_name": repo.full_name,
            "owner": self._user_json(self._users[repo.owner.lower()]),
            "private": False,
            "default_branch": repo.default_branch,
            "url": f"{self.url}/repos/{repo.full_name}",
            "html_url": f"{self.web_url}/{repo.full_name}",
            "clone_url": clone,
            "permissions": {"admin": False, "push": True, "pull": True},
        }

    def _issue_json(self, repo: _Repo, issue: _Issue) -> Json:
        api = f"{self.url}/repos/{repo.full_name}"
        data: Json = {
            "id": 100000 + repo.id * 1000 + issue.number,
            "node_id": f"I_{repo.id}_{issue.number}",
            "number": issue.number,
            "title": issue.title,
            "body": issue.body,
            "user": self._user_json(issue.user),
            "labels": [
                {"id": abs(hash(name)) % 10**8, "name": name, "color": "ededed", "url": ""}
                for name in issue.labels
            ],
            "state": issue.state,
            "locked": False,
            "comments": sum(1 for c in repo.comments.values() if c.issue_number == issue.number),
            "created_at": issue.created_at,
            "updated_at": issue.created_at,
            "closed_at": None,
            "author_association": "OWNER",
            "url": f"{api}/issues/{issue.number}",
            "repository_url": api,
            "comments_url": f"{api}/issues/{issue.number}/comments",
            "html_url": f"{self.web_url}/{repo.full_name}/issues/{issue.number}",
            "reactions": {
                "url": f"{api}/issues/{issue.number}/reactions",
                "total_count": sum(issue.reactions.values()),
                **{content: issue.reactions.get(content, 0) for content in REACTIONS},
            },
        }
        if issue.pull is not None:
            data["pull_request"] = {
                "url": f"{api}/pulls/{issue.number}",
                "html_url": f"{self.web_url}/{repo.full_name}/pull/{issue.number}",
                "diff_url": f"{self.web_url}/{repo.full_name}/pull/{issue.number}.diff",
            }
            data["draft"] = issue.pull.draft
        return data

    def _pull_json(self, repo: _Repo, issue: _Issue) -> Json:
        pull = issue.pull
        assert pull is not None
        api = f"{self.url}/repos/{repo.full_name}"

        def ref(name: str, sha: str) -> Json:
            return {
                "label": f"{repo.owner}:{name}",
                "ref": name,
                "sha": sha,
                "repo": self._repo_json(repo),
                "user": self._user_json(self._users[repo.owner.lower()]),
            }

        return {
            **{k: v for k, v in self._issue_json(repo, issue).items() if k != "pull_request"},
            "url": f"{api}/pulls/{issue.number}",
            "html_url": f"{self.web_url}/{repo.full_name}/pull/{issue.number}",
            "issue_url": f"{api}/issues/{issue.number}",
            "diff_url": f"{self.web_url}/{repo.full_name}/pull/{issue.number}.diff",
            "draft": pull.draft,
            "merged": False,
            "mergeable": True,
            "head": {
                **ref(pull.head, pull.head_sha),
                **(
                    {"repo": {**self._repo_json(repo), "full_name": pull.head_repo}}
                    if pull.head_repo
                    else {}
                ),
            },
            "base": ref(pull.base, "1" * 40),
        }

    def _comment_json(self, repo: _Repo, comment: _Comment) -> Json:
        api = f"{self.url}/repos/{repo.full_name}"
        return {
            "id": comment.id,
            "node_id": f"IC_{comment.id}",
            "body": comment.body,
            "user": self._user_json(comment.user),
            "created_at": comment.created_at,
            "updated_at": comment.updated_at,
            "author_association": "NONE",
            "url": f"{api}/issues/comments/{comment.id}",
            "issue_url": f"{api}/issues/{comment.issue_number}",
            "html_url": (
                f"{self.web_url}/{repo.full_name}/issues/{comment.issue_number}"
                f"#issuecomment-{comment.id}"
            ),
        }

    def _review_comment_json(self, repo: _Repo, number: int, comment: _ReviewComment) -> Json:
        api = f"{self.url}/repos/{repo.full_name}"
        html = f"{self.web_url}/{repo.full_name}/pull/{number}#discussion_r{comment.id}"
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
            "user": self._user_json(comment.user),
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

    def _paginate(
        self, request: RecordedRequest, items: list[_Item]
    ) -> tuple[list[_Item], dict[str, str]]:
        """Slice one page and build GitHub's `Link` header (first/prev/next/last)."""
        per_page = max(1, min(100, int(request.query.get("per_page", ["30"])[0])))
        page = max(1, int(request.query.get("page", ["1"])[0]))
        last = max(1, -(-len(items) // per_page))
        base = {k: v[0] for k, v in request.query.items() if k not in ("page", "per_page")}

        def link(number: int, rel: str) -> str:
            query = urlencode({**base, "per_page": per_page, "page": number})
            return f'<{self.url}{request.path}?{query}>; rel="{rel}"'

        links = []
        if page > 1:
            links += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        headers = {"Link": ", ".join(links)} if links else {}
        return items[(page - 1) * per_page : page * per_page], headers

    # routing ---------------------------------------------------------------------------------

    def _take_fault(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for key, queue in self._faults.items():
                verb, pattern = key.split(" ", 1)
                if queue and verb == method and re.fullmatch(pattern, path):
                    return queue.popleft()
        return None

    def _dispatch(self, request: RecordedRequest) -> tuple[int, Any, dict[str, str]]:
        for method, pattern, handler in _ROUTES:
            match = re.fullmatch(pattern, request.path)
            if match and method == request.method:
                with self._lock:
                    return handler(self, match, request)
        raise _HttpError(404, "Not Found")


# --- route handlers ---------------------------------------------------------------------------


def _repo_of(server: FakeGitHubServer, m: re.Match[str]) -> _Repo:
    return server._repo(f"{m['owner']}/{m['repo']}")


def _issue_of(server: FakeGitHubServer, m: re.Match[str]) -> tuple[_Repo, _Issue]:
    repo = _repo_of(server, m)
    issue = repo.issues.get(int(m["number"]))
    if issue is None:
        raise _HttpError(404, "Not Found")
    return repo, issue


def _pull_of(server: FakeGitHubServer, m: re.Match[str]) -> tuple[_Repo, _Issue, _Pull]:
    repo, issue = _issue_of(server, m)
    if issue.pull is None:
        raise _HttpError(404, "Not Found")
    return repo, issue, issue.pull


def _body(request: RecordedRequest) -> Json:
    if not isinstance(request.body, dict):
        raise _HttpError(400, "Problems parsing JSON")
    return request.body


def _get_repo(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    return 200, s._repo_json(_repo_of(s, m)), {}


def _get_user(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    if m.groupdict().get("login") is None:
        return 200, s._user_json(s.token_user), {}
    user = s._users.get(unquote(m["login"]).lower())
    if user is None:
        raise _HttpError(404, "Not Found")
    return 200, s._user_json(user), {}


def _get_issue(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue = _issue_of(s, m)
    return 200, s._issue_json(repo, issue), {}


def _matches_labels(issue: _Issue, wanted: list[str]) -> bool:
    names = {name.lower() for name in issue.labels}
    return all(label.lower() in names for label in wanted)


def _query_choice(r: RecordedRequest, name: str, choices: tuple[str, ...], default: str) -> str:
    """A query parameter that takes one of a few words; another word is GitHub's 422."""
    value = r.query.get(name, [default])[0]
    if value not in choices:
        raise _HttpError(
            422, "Validation Failed", [{"resource": "Issue", "field": name, "code": "invalid"}]
        )
    return value


def _list_issues(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    """Issues and pulls (GitHub's issue list holds both), filtered by state and labels and
    sorted by `sort` (created, updated, comments; ties by number) in `direction` (default:
    newest first). Only the page served is built."""
    repo = _repo_of(s, m)
    state = _query_choice(r, "state", ("open", "closed", "all"), "open")
    sort = _query_choice(r, "sort", _ISSUE_SORTS, "created")
    descending = _query_choice(r, "direction", _DIRECTIONS, "desc") == "desc"
    labels = [x for x in r.query.get("labels", [""])[0].split(",") if x]
    comments: Counter[int] = Counter()
    if sort == "comments":
        comments.update(c.issue_number for c in repo.comments.values())

    def key(issue: _Issue) -> tuple[Any, int]:
        # The local server keeps no edit times: an issue was last updated when it was made.
        value = comments[issue.number] if sort == "comments" else issue.created_at
        return value, issue.number

    found = sorted(
        (i for i in repo.issues.values() if state in ("all", i.state)),
        key=key,
        reverse=descending,
    )
    found = [i for i in found if _matches_labels(i, labels)]
    page, headers = s._paginate(r, found)
    return 200, [s._issue_json(repo, i) for i in page], headers


def _list_comments(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue = _issue_of(s, m)
    found = [
        s._comment_json(repo, c) for c in repo.comments.values() if c.issue_number == issue.number
    ]
    page, headers = s._paginate(r, found)
    return 200, page, headers


def _create_comment(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue = _issue_of(s, m)
    body = _body(r).get("body")
    if not isinstance(body, str) or not body:
        raise _HttpError(422, "Validation Failed", [{"field": "body", "code": "missing_field"}])
    now = _now()
    comment = _Comment(next(s._ids), issue.number, body, s.token_user, now, now)
    repo.comments[comment.id] = comment
    return 201, s._comment_json(repo, comment), {}


def _comment_of(s: FakeGitHubServer, m: re.Match[str]) -> tuple[_Repo, _Comment]:
    repo = _repo_of(s, m)
    comment = repo.comments.get(int(m["id"]))
    if comment is None:
        raise _HttpError(404, "Not Found")
    return repo, comment


def _get_comment(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, comment = _comment_of(s, m)
    return 200, s._comment_json(repo, comment), {}


def _edit_comment(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, comment = _comment_of(s, m)
    comment.body = str(_body(r).get("body", comment.body))
    comment.updated_at = _now()
    return 200, s._comment_json(repo, comment), {}


def _delete_comment(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, comment = _comment_of(s, m)
    del repo.comments[comment.id]
    return 204, None, {}


def _permission(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo = _repo_of(s, m)
    login = unquote(m["login"])
    user = s._users.get(login.lower())
    if user is None:
        raise _HttpError(404, f"{login} is not a user")
    role = repo.permissions.get(login.lower(), "none")
    body = {
        "permission": _LEGACY_PERMISSION.get(role, role),
        "role_name": _ROLE_NAMES.get(role, role),
        "user": s._user_json(user),
    }
    return 200, body, {}


def _known_branch(repo: _Repo, name: str) -> bool:
    if name in repo.branches:
        return True
    if repo.bare_path is None:
        return False
    ref = f"refs/heads/{name}"
    try:
        run_git(["--git-dir", str(repo.bare_path), "rev-parse", "--verify", "--quiet", ref], None)
    except GitError:
        return False
    return True


def _get_branch(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo = _repo_of(s, m)
    name = unquote(m["branch"])
    if not _known_branch(repo, name):
        raise _HttpError(404, "Branch not found")
    api = f"{s.url}/repos/{repo.full_name}"
    commit = {"sha": "0" * 40, "url": f"{api}/commits/{'0' * 40}"}
    return 200, {"name": name, "commit": commit, "protected": False}, {}


def _get_contents(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    """A file's content at `?ref=` (default: the default branch), read from the bare repo;
    404 when the repository has no bare repo or no such file, as GitHub answers."""
    repo = _repo_of(s, m)
    path = unquote(m["path"]).strip("/")
    ref = r.query.get("ref", [repo.default_branch])[0]
    if repo.bare_path is None:
        raise _HttpError(404, "Not Found")
    git_dir = ["--git-dir", str(repo.bare_path)]
    try:
        kind = run_git([*git_dir, "cat-file", "-t", f"{ref}:{path}"], None).strip()
    except GitError:
        raise _HttpError(404, "Not Found") from None
    if kind == "tree":
        names = run_git([*git_dir, "ls-tree", "--name-only", f"{ref}:{path}"], None).split()
        return 200, [{"type": "file", "name": n, "path": f"{path}/{n}"} for n in names], {}
    data = run_git_bytes([*git_dir, "cat-file", "blob", f"{ref}:{path}"], None)
    body = {
        "type": "file",
        "encoding": "base64",
        "size": len(data),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": run_git([*git_dir, "rev-parse", f"{ref}:{path}"], None).strip(),
        "content": base64.encodebytes(data).decode("ascii"),
        "url": f"{s.url}/repos/{repo.full_name}/contents/{quote(path)}?ref={quote(ref)}",
    }
    return 200, body, {}


def _create_pull(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo = _repo_of(s, m)
    body = _body(r)
    head, base = str(body.get("head", "")), str(body.get("base", ""))
    head_branch = head.split(":", 1)[-1]
    if not _known_branch(repo, head_branch):
        raise _HttpError(422, "Validation Failed", [{"field": "head", "code": "invalid"}])
    for issue in repo.issues.values():
        if issue.pull and issue.state == "open" and issue.pull.head == head_branch:
            message = f"A pull request already exists for {repo.owner}:{head_branch}."
            raise _HttpError(422, "Validation Failed", [{"code": "custom", "message": message}])
    number = s.add_pull(
        repo.full_name,
        head_branch,
        base,
        str(body.get("title", "")),
        str(body.get("body") or ""),
        bool(body.get("draft", False)),
        user=s.token_user.login,
    )
    return 201, s._pull_json(repo, repo.issues[number]), {}


def _list_pulls(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo = _repo_of(s, m)
    state = r.query.get("state", ["open"])[0]
    head = r.query.get("head", [""])[0]
    found = [
        s._pull_json(repo, i)
        for i in sorted(repo.issues.values(), key=lambda i: -i.number)
        if i.pull
        and (state == "all" or i.state == state)
        and (not head or f"{repo.owner}:{i.pull.head}".lower() == head.lower())
    ]
    page, headers = s._paginate(r, found)
    return 200, page, headers


def _get_pull(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue, pull = _pull_of(s, m)
    if "diff" in r.headers.get("accept", ""):
        diff = pull.diff or ""
        if diff.count("\n") > s.max_diff_lines:
            raise _HttpError(
                406,
                f"Sorry, the diff exceeded the maximum number of lines ({s.max_diff_lines})",
                [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
            )
        return 200, diff, {"Content-Type": "text/plain; charset=utf-8"}
    return 200, s._pull_json(repo, issue), {}


def _update_pull(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue, pull = _pull_of(s, m)
    body = _body(r)
    issue.title = str(body.get("title", issue.title))
    issue.body = str(body.get("body", issue.body))
    issue.state = str(body.get("state", issue.state))
    pull.base = str(body.get("base", pull.base))
    return 200, s._pull_json(repo, issue), {}


def _pull_files(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, _issue, pull = _pull_of(s, m)
    patches = list(PatchSet(pull.diff or ""))[:MAX_PULL_FILES]
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
            "blob_url": f"{s.web_url}/{repo.full_name}/blob/{pull.head_sha}/{patched.path}",
            "raw_url": f"{s.web_url}/{repo.full_name}/raw/{pull.head_sha}/{patched.path}",
            "contents_url": f"{s.url}/repos/{repo.full_name}/contents/{patched.path}",
        }
        for patched in patches
    ]
    page, headers = s._paginate(r, files)
    return 200, page, headers


def _diff_lines(diff: str) -> dict[tuple[str, str], set[int]]:
    """Lines a review comment may target, per (path, side), as GitHub resolves them: by the
    file's name, not by git's quoting of it."""
    lines: dict[tuple[str, str], set[int]] = defaultdict(set)
    for patched in PatchSet(diff):
        path = unquote_path(patched.path)
        for hunk in patched:
            for line in hunk:
                if line.target_line_no is not None:
                    lines[(path, "RIGHT")].add(line.target_line_no)
                if line.source_line_no is not None and not line.is_added:
                    lines[(path, "LEFT")].add(line.source_line_no)
    return lines


def _create_review(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue, pull = _pull_of(s, m)
    body = _body(r)
    event = body.get("event", "PENDING")
    if event not in ("APPROVE", "REQUEST_CHANGES", "COMMENT", "PENDING"):
        raise _HttpError(422, "Validation Failed", [{"field": "event", "code": "invalid"}])
    if event in ("REQUEST_CHANGES", "COMMENT") and not body.get("body"):
        raise _HttpError(
            422, "Unprocessable Entity", [f"Review Can not {event.lower()} without a body"]
        )
    comments = body.get("comments") or []
    if pull.diff is not None:
        allowed = _diff_lines(pull.diff)
        for comment in comments:
            key = (comment.get("path"), comment.get("side", "RIGHT"))
            if comment.get("line") not in allowed.get(key, set()):
                raise _HttpError(
                    422,
                    "Unprocessable Entity",
                    ["Pull request review thread line must be part of the diff"],
                )
    state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}.get(str(event), "")
    state = state or ("COMMENTED" if event == "COMMENT" else str(event))
    review = _add_review(s, repo, issue.number, pull, str(body.get("body", "")), state)
    review["commit_id"] = body.get("commit_id") or pull.head_sha
    review["comments"] = comments
    for comment in comments:
        path, line = str(comment.get("path")), int(comment.get("line") or 0)
        side = str(comment.get("side", "RIGHT"))
        hunk, position = _hunk_up_to(pull.diff or "", path, line, side)
        stored = _ReviewComment(
            next(s._ids),
            review["id"],
            path,
            line,
            side,
            str(comment.get("body", "")),
            s.token_user,
            review["commit_id"],
            _now(),
            diff_hunk=hunk,
            position=position,
        )
        pull.review_comments[stored.id] = stored
        pull.threads.append(_Thread(f"PRRT_{stored.id}", [stored.id]))
    return 200, {k: v for k, v in review.items() if k != "comments"}, {}


def _add_review(
    s: FakeGitHubServer, repo: _Repo, number: int, pull: _Pull, body: str, state: str
) -> Json:
    review_id = next(s._ids)
    review: Json = {
        "id": review_id,
        "node_id": f"PRR_{review_id}",
        "user": s._user_json(s.token_user),
        "body": body,
        "state": state,
        "commit_id": pull.head_sha,
        "submitted_at": _now(),
        "comments": [],
        "html_url": f"{s.web_url}/{repo.full_name}/pull/{number}#pullrequestreview-{review_id}",
        "pull_request_url": f"{s.url}/repos/{repo.full_name}/pulls/{number}",
    }
    pull.reviews.append(review)
    return review


def _hunk_up_to(diff: str, path: str, line: int, side: str) -> tuple[str, int | None]:
    """GitHub's `diff_hunk` of a review comment (its hunk up to the line) and `position`
    (lines below the file's first hunk header)."""
    position = 0
    for patched in PatchSet(diff):
        if unquote_path(patched.path) != path:
            continue
        for index, hunk in enumerate(patched):
            position += 0 if index == 0 else 1
            header = str(hunk).split("\n", 1)[0]
            shown = [header]
            for row in hunk:
                position += 1
                shown.append(str(row).rstrip("\n"))
                number = row.target_line_no if side == "RIGHT" else row.source_line_no
                if number == line and (side == "RIGHT" or not row.is_added):
                    return "\n".join(shown), position
    return "", None


def _review_comments_of(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue, pull = _pull_of(s, m)
    found = [s._review_comment_json(repo, issue.number, c) for c in pull.review_comments.values()]
    if r.query.get("direction", ["asc"])[0] == "desc":
        found.reverse()
    page, headers = s._paginate(r, found)
    return 200, page, headers


def _reply_to_review_comment(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    repo, issue, pull = _pull_of(s, m)
    text = _body(r).get("body")
    if not isinstance(text, str) or not text:
        raise _HttpError(422, "Validation Failed", [{"field": "body", "code": "missing_field"}])
    target = pull.review_comments.get(int(m["id"]))
    if target is None:
        raise _HttpError(404, "Not Found")
    if target.in_reply_to_id is not None:
        raise _HttpError(422, "Validation Failed", ["Replies to replies are not supported"])
    # GitHub files each reply under a review of its own (COMMENTED, empty body).
    review = _add_review(s, repo, issue.number, pull, "", "COMMENTED")
    reply = _ReviewComment(
        next(s._ids),
        review["id"],
        target.path,
        target.line,
        target.side,
        text,
        s.token_user,
        pull.head_sha,
        _now(),
        in_reply_to_id=target.id,
        diff_hunk=target.diff_hunk,
        position=target.position,
    )
    pull.review_comments[reply.id] = reply
    for thread in pull.threads:
        if target.id in thread.comment_ids:
            thread.comment_ids.append(reply.id)
    return 201, s._review_comment_json(repo, issue.number, reply), {}


# --- GraphQL: the two review-thread operations amelia uses ----------------------------------

_ARGUMENT = r"\s*(?:\$(?P<{0}_var>\w+)|\"(?P<{0}_str>[^\"]*)\"|(?P<{0}_num>\d+))"
_REPOSITORY = re.compile(
    r"repository\(\s*owner:"
    + _ARGUMENT.format("owner")
    + r"\s*,\s*name:"
    + _ARGUMENT.format("name")
)
_PULL_REQUEST = re.compile(r"pullRequest\(\s*number:" + _ARGUMENT.format("number"))
_CONNECTION = r"{0}\((?P<args>[^)]*)\)"
_RESOLVE = re.compile(
    r"(?<![A-Za-z])resolveReviewThread\(\s*input:\s*\{\s*threadId:" + _ARGUMENT.format("thread")
)


def _graphql_value(found: re.Match[str], name: str, variables: Json) -> Any:
    if found[f"{name}_var"] is not None:
        return variables.get(found[f"{name}_var"])
    if found[f"{name}_str"] is not None:
        return found[f"{name}_str"]
    return int(found[f"{name}_num"])


def _graphql_error(message: str, kind: str | None = None, path: list[str] | None = None) -> Json:
    error: Json = {"message": message, "locations": [{"line": 1, "column": 1}]}
    if kind is not None:
        error["type"] = kind
    if path is not None:
        error["path"] = path
    return error


def _connection_args(query: str, field_name: str, variables: Json) -> tuple[int, int]:
    """(first, offset) of a connection field; GitHub requires `first` or `last`."""
    found = re.search(_CONNECTION.format(field_name), query)
    args = found["args"] if found else ""
    values: dict[str, Any] = {}
    for name, value in re.findall(r"(\w+):\s*(\$\w+|\"[^\"]*\"|\d+|null)", args):
        if value.startswith("$"):
            values[name] = variables.get(value[1:])
        elif value.startswith('"'):
            values[name] = value[1:-1]
        elif value != "null":
            values[name] = int(value)
    first = values.get("first")
    if not isinstance(first, int):
        raise _GraphQLError(
            f"You must provide a `first` or `last` value to properly paginate the "
            f"`{field_name}` connection."
        )
    after = values.get("after")
    offset = int(after.removeprefix("cursor:")) if isinstance(after, str) else 0
    return min(first, 100), offset


class _GraphQLError(Exception):
    pass


def _review_threads(s: FakeGitHubServer, query: str, variables: Json) -> Json:
    where = _REPOSITORY.search(query)
    number = _PULL_REQUEST.search(query)
    if where is None or number is None:
        raise _GraphQLError("the local GitHub reads reviewThreads through repository.pullRequest")
    full_name = (
        f"{_graphql_value(where, 'owner', variables)}/{_graphql_value(where, 'name', variables)}"
    )
    repo = s._repos.get(full_name.lower())
    issue = repo.issues.get(int(_graphql_value(number, "number", variables))) if repo else None
    if repo is None or issue is None or issue.pull is None:
        return {
            "data": {"repository": None},
            "errors": [
                _graphql_error(
                    f"Could not resolve to a Repository or PullRequest ({full_name})",
                    "NOT_FOUND",
                    ["repository"],
                )
            ],
        }
    pull = issue.pull
    first, offset = _connection_args(query, "reviewThreads", variables)
    per_thread, _ = _connection_args(query, "comments", variables)
    chosen = pull.threads[offset : offset + first]
    nodes = []
    for thread in chosen:
        comments = [pull.review_comments[i] for i in thread.comment_ids][:per_thread]
        root = pull.review_comments[thread.comment_ids[0]]
        nodes.append(
            {
                "id": thread.id,
                "isResolved": thread.is_resolved,
                "isOutdated": False,
                "path": root.path,
                "line": root.line,
                "comments": {
                    "totalCount": len(thread.comment_ids),
                    "nodes": [
                        {
                            "id": f"PRRC_{c.id}",
                            "databaseId": c.id,
                            "body": c.body,
                            "author": {"login": c.user.login},
                        }
                        for c in comments
                    ],
                },
            }
        )
    end = offset + len(chosen)
    page_info = {
        "hasNextPage": end < len(pull.threads),
        "endCursor": f"cursor:{end}" if chosen else None,
        "hasPreviousPage": offset > 0,
        "startCursor": f"cursor:{offset}" if chosen else None,
    }
    connection = {"totalCount": len(pull.threads), "pageInfo": page_info, "nodes": nodes}
    return {"data": {"repository": {"pullRequest": {"reviewThreads": connection}}}}


def _resolve_thread(s: FakeGitHubServer, found: re.Match[str], variables: Json) -> Json:
    thread_id = str(_graphql_value(found, "thread", variables))
    path = ["resolveReviewThread"]
    if s.forbid_resolving:
        error = _graphql_error("Resource not accessible by integration", "FORBIDDEN", path)
        return {"data": {"resolveReviewThread": None}, "errors": [error]}
    for repo in s._repos.values():
        for issue in repo.issues.values():
            for thread in issue.pull.threads if issue.pull else ():
                if thread.id == thread_id:
                    thread.is_resolved = True
                    thread.resolved_by = s.token_user.login
                    payload = {"thread": {"id": thread.id, "isResolved": True}}
                    return {"data": {"resolveReviewThread": payload}}
    message = f"Could not resolve to a node with the global id of '{thread_id}'"
    return {
        "data": {"resolveReviewThread": None},
        "errors": [_graphql_error(message, "NOT_FOUND", path)],
    }


def _graphql(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    body = _body(r)
    query = str(body.get("query") or "")
    variables = body.get("variables") or {}
    try:
        resolve = _RESOLVE.search(query)
        if resolve is not None:
            return 200, _resolve_thread(s, resolve, variables), {}
        if "reviewThreads" in query:
            return 200, _review_threads(s, query, variables), {}
        if re.search(r"\bviewer\s*\{\s*login\s*\}", query):
            return 200, {"data": {"viewer": {"login": s.token_user.login}}}, {}
        raise _GraphQLError(
            "the local GitHub answers only viewer, reviewThreads and resolveReviewThread"
        )
    except _GraphQLError as error:
        return 200, {"errors": [_graphql_error(str(error))]}, {}


def _list_reviews(s: FakeGitHubServer, m: re.Match[str], r: RecordedRequest) -> Any:
    _repo, _issue, pull = _pull_of(s, m)
    page, headers = s._paginate(
        r, [{k: v for k, v in x.items() if k != "comments"} for x in pull.reviews]
    )
    return 200, page, headers


_R = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"
_ROUTES: list[tuple[str, str, Handler]] = [
    ("GET", r"/user", _get_user),
    ("GET", r"/users/(?P<login>[^/]+)", _get_user),
    ("GET", _R, _get_repo),
    ("GET", _R + r"/issues", _list_issues),
    ("GET", _R + r"/issues/(?P<number>\d+)", _get_issue),
    ("GET", _R + r"/issues/(?P<number>\d+)/comments", _list_comments),
    ("POST", _R + r"/issues/(?P<number>\d+)/comments", _create_comment),
    ("GET", _R + r"/issues/comments/(?P<id>\d+)", _get_comment),
    ("PATCH", _R + r"/issues/comments/(?P<id>\d+)", _edit_comment),
    ("DELETE", _R + r"/issues/comments/(?P<id>\d+)", _delete_comment),
    ("GET", _R + r"/collaborators/(?P<login>[^/]+)/permission", _permission),
    ("GET", _R + r"/branches/(?P<branch>.+)", _get_branch),
    ("GET", _R + r"/contents/(?P<path>.+)", _get_contents),
    ("POST", _R + r"/pulls", _create_pull),
    ("GET", _R + r"/pulls", _list_pulls),
    ("GET", _R + r"/pulls/(?P<number>\d+)", _get_pull),
    ("PATCH", _R + r"/pulls/(?P<number>\d+)", _update_pull),
    ("GET", _R + r"/pulls/(?P<number>\d+)/files", _pull_files),
    ("POST", _R + r"/pulls/(?P<number>\d+)/reviews", _create_review),
    ("GET", _R + r"/pulls/(?P<number>\d+)/reviews", _list_reviews),
    ("GET", _R + r"/pulls/(?P<number>\d+)/comments", _review_comments_of),
    (
        "POST",
        _R + r"/pulls/(?P<number>\d+)/comments/(?P<id>\d+)/replies",
        _reply_to_review_comment,
    ),
    ("POST", r"/graphql", _graphql),
]


_GIT_ROUTE = re.compile(
    r"/(?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/(?P<rest>info/refs|git-upload-pack|git-receive-pack)"
)
_GIT_SERVICES = ("git-upload-pack", "git-receive-pack")


def _password(authorization: str) -> str | None:
    """The password of an HTTP basic `Authorization` header (any scheme spelling)."""
    scheme, _space, encoded = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded.partition(":")[2] or None


def _cgi_response(output: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of a CGI program's output."""
    head, _blank, body = output.partition(b"\r\n\r\n")
    status = 200
    headers: list[tuple[str, str]] = []
    for line in head.decode("latin-1").split("\r\n"):
        name, _colon, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers.append((name, value.strip()))
    return status, headers, body


class _RequestHandler(QuietHandler):
    fake: FakeGitHubServer

    def _handle(self) -> None:
        split = urlsplit(self.path)
        git_route = _GIT_ROUTE.fullmatch(split.path)
        if git_route is not None:
            self._serve_git(git_route, split.query)
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest(
            method=self.command,
            path=split.path,
            query=parse_qs(split.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        self.fake.requests.append(request)
        fault = self.fake._take_fault(request.method, request.path)
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.stall_seconds)
            fault = None
        if fault is not None and fault.kind == "lost":
            with contextlib.suppress(_HttpError):  # the answer is lost either way
                self.fake._dispatch(request)
            time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        if fault is not None and fault.kind != "status":
            if fault.kind == "stall":
                time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        if fault is not None:
            payload: Any = {"message": fault.message, "documentation_url": _DOCS}
            self._send(fault.status, payload, fault.headers)
            return
        try:
            status, payload, headers = self.fake._dispatch(request)
        except _HttpError as error:
            payload = {
                "message": error.message,
                "documentation_url": _DOCS,
                "status": str(error.status),
            }
            if error.errors is not None:
                payload["errors"] = error.errors
            status, headers = error.status, {}
        self._send(status, payload, headers)

    def _request_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve_git(self, route: re.Match[str], query: str) -> None:
        """Answer git's smart HTTP protocol from the repository's bare clone, unless a fault
        was injected for the request's path (`/<owner>/<name>/git-receive-pack`, …)."""
        body = self._request_body()
        fault = self.fake._take_fault(self.command, route.group(0))
        if fault is not None and fault.kind == "delay":
            time.sleep(fault.stall_seconds)
        elif fault is not None and fault.kind == "status":
            message = f"{fault.message}\n".encode()
            self._send_bytes(fault.status, [("Content-Type", "text/plain")], message)
            return
        elif fault is not None:
            if fault.kind == "stall":
                time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        with self.fake._lock:
            repo = self.fake._repos.get(f"{route['owner']}/{route['name']}".lower())
        rest = route["rest"]
        service = parse_qs(query).get("service", [""])[0] if rest == "info/refs" else rest
        if repo is None or repo.bare_path is None or service not in _GIT_SERVICES:
            self._send_bytes(404, [("Content-Type", "text/plain")], b"Repository not found.\n")
            return
        password = _password(self.headers.get("Authorization", ""))
        authenticated = repo.git_token is not None and password == repo.git_token
        self.fake.git_requests.append(
            GitRequest(self.command, route.group(0), service, authenticated)
        )
        if service == "git-receive-pack" and not authenticated:
            headers = [("WWW-Authenticate", 'Basic realm="GitHub"'), ("Content-Type", "text/plain")]
            message = b"Invalid username or token. Password authentication is not supported.\n"
            self._send_bytes(401, headers, message)
            return
        environment = {
            "REQUEST_METHOD": self.command,
            "QUERY_STRING": query,
            "PATH_INFO": f"/{rest}",
            "PATH_TRANSLATED": f"{repo.bare_path}/{rest}",
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "GIT_HTTP_EXPORT_ALL": "1",
            "REMOTE_ADDR": "127.0.0.1",
            **({"REMOTE_USER": "x-access-token"} if authenticated else {}),
            **{
                variable: self.headers[header]
                for header, variable in (
                    ("Content-Encoding", "HTTP_CONTENT_ENCODING"),
                    ("Git-Protocol", "GIT_PROTOCOL"),
                )
                if self.headers.get(header)
            },
        }
        try:
            output = run_git_service(["http-backend"], environment=environment, input=body)
        except GitError as error:
            self._send_bytes(500, [("Content-Type", "text/plain")], error.message.encode())
            return
        status, headers, payload = _cgi_response(output)
        self._send_bytes(status, headers, payload)

    def _send_bytes(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        if payload is None:
            data = b""
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = json.dumps(payload).encode()
        self.send_response(status)
        base = {
            "Content-Type": "application/json; charset=utf-8",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            "X-GitHub-Request-Id": f"FAKE:{len(self.fake.requests)}",
        }
        if self.fake.oauth_scopes is not None:
            base["X-OAuth-Scopes"] = ", ".join(self.fake.oauth_scopes)
        lower = {k.lower() for k in headers}
        for name, value in {
            **{k: v for k, v in base.items() if k.lower() not in lower},
            **headers,
        }.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _drop_connection(self) -> None:
        # SO_LINGER 0 turns close() into a TCP RST, which clients see as "connection reset".
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            return

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle
