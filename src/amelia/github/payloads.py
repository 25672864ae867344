"""GitHub's REST JSON as the port's models (`amelia.github.models`).

Each reader takes the JSON GitHub sent (a dict, or the PyGithub object that holds it) and
keeps only what amelia uses; a missing optional field reads as empty.
"""

from __future__ import annotations

from typing import Any

from amelia.github.models import CommentInfo, IssueInfo, PullInfo, ReviewCommentInfo, ReviewInfo

__all__ = [
    "comment_info",
    "issue_info",
    "pull_info",
    "raw",
    "review_comment_info",
    "review_info",
]


def raw(obj: Any) -> dict[str, Any]:
    """The JSON PyGithub got. Its attribute getters would fetch the object again whenever
    GitHub omitted a field (an issue that is no pull request has no `pull_request`), one
    request each."""
    data = obj._rawData if not isinstance(obj, dict) else obj
    return dict(data)


def issue_info(issue: Any) -> IssueInfo:
    data = raw(issue)
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


def comment_info(data: Any) -> CommentInfo:
    return CommentInfo(
        id=int(data["id"]),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        html_url=str(data.get("html_url") or ""),
    )


def review_info(data: Any) -> ReviewInfo:
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


def review_comment_info(data: Any) -> ReviewCommentInfo:
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


def pull_info(data: Any) -> PullInfo:
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
