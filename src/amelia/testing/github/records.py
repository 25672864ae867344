"""The records the local GitHub keeps (users, repositories, issues, comments, pulls,
reviews, review comments, threads, file contents) and the refusals it answers with.

Plain mutable dataclasses: `GitHubState` owns and changes them under its lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

__all__ = [
    "ApiError",
    "Comment",
    "Contents",
    "GraphQLError",
    "Issue",
    "Json",
    "Pull",
    "Repository",
    "Review",
    "ReviewComment",
    "Thread",
    "User",
    "now",
]

Json = dict[str, Any]


def now() -> str:
    """The time as GitHub writes it: `YYYY-MM-DDTHH:MM:SSZ`."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class ApiError(Exception):
    """GitHub's REST answer to a request it refuses: status, message and `errors`."""

    def __init__(self, status: int, message: str, errors: list[Any] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


class GraphQLError(Exception):
    """A GraphQL error (answered with status 200): its message, `type`, `path`, and the
    `data` GitHub sends along (the field that failed as null)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str | None = None,
        path: list[str] | tuple[str, ...] | None = None,
        data: Json | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.path = list(path) if path is not None else None
        self.data = data

    def as_json(self) -> Json:
        """The entry of the answer's `errors` list."""
        error: Json = {"message": self.message, "locations": [{"line": 1, "column": 1}]}
        if self.kind is not None:
            error["type"] = self.kind
        if self.path is not None:
            error["path"] = self.path
        return error


@dataclass
class User:
    login: str
    type: str = "User"
    """`User`, `Bot` or `Organization`."""
    id: int = 0


@dataclass
class Comment:
    """A comment on an issue or pull request."""

    id: int
    issue_number: int
    body: str
    user: User
    created_at: str
    updated_at: str


@dataclass
class ReviewComment:
    """A comment on a line of a pull request's diff: a thread's start or a reply in it."""

    id: int
    review_id: int
    path: str
    line: int
    side: str
    body: str
    user: User
    commit_id: str
    created_at: str
    in_reply_to_id: int | None = None
    diff_hunk: str = ""
    position: int | None = None


@dataclass
class Review:
    id: int
    user: User
    body: str
    state: str
    """`APPROVED`, `CHANGES_REQUESTED`, `COMMENTED` or `PENDING`."""
    commit_id: str
    submitted_at: str
    comments: list[Json] = field(default_factory=list)
    """The inline comments as the review's request carried them."""


@dataclass
class Thread:
    id: str
    comment_ids: list[int]
    is_resolved: bool = False
    resolved_by: str | None = None


@dataclass
class Pull:
    number: int
    head: str
    base: str
    head_sha: str
    draft: bool
    diff: str | None = None
    head_repo: str | None = None
    """owner/name of a fork holding the head branch (None: this repository)."""
    reviews: list[Review] = field(default_factory=list)
    review_comments: dict[int, ReviewComment] = field(default_factory=dict)
    threads: list[Thread] = field(default_factory=list)


@dataclass
class Issue:
    """An issue, or the issue side of a pull request (`pull` set)."""

    number: int
    title: str
    body: str
    user: User
    labels: list[str]
    state: str
    created_at: str
    pull: Pull | None = None
    reactions: dict[str, int] = field(default_factory=dict)
    """Reaction content (`+1`, `heart`, …) → how many people gave it."""


@dataclass
class Repository:
    owner: str
    name: str
    default_branch: str
    bare_path: Path | None
    id: int
    issues: dict[int, Issue] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    branches: set[str] = field(default_factory=set)
    git_token: str | None = None

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass(frozen=True)
class Contents:
    """What `GET …/contents/{path}?ref=` finds: a file's bytes, or a folder's entries."""

    path: str
    ref: str
    kind: Literal["file", "dir"]
    data: bytes = b""
    sha: str = ""
    entries: tuple[str, ...] = ()
