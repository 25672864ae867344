"""What the modes and GitHub exchange: plain, frozen pydantic models, never a PyGithub object.

Every implementation of the GitHub port (`amelia.github.port`) answers with these: the
adapter over PyGithub reads them from GitHub's JSON (`amelia.github.payloads`), the dry run
and the in-memory GitHub of `amelia.testing.github` build them directly.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "CommentInfo",
    "InlineComment",
    "IssueInfo",
    "PullInfo",
    "ReviewCommentInfo",
    "ReviewInfo",
    "ReviewThreadInfo",
]

_RESULT_CONFIG = ConfigDict(frozen=True, defer_build=True)
"""A run reads a few of these results: each builds its validator when first used."""


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
