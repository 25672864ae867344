"""What amelia's earlier reviews of a pull request left behind: the last commit reviewed and
the findings nobody has resolved yet.

amelia's reviews name the commit they reviewed on their first line (`review_marker`). Only
reviews whose author is a GitHub App (`Bot`) or has write access count: anyone can post a
review whose body starts with the same marker, and a forged one must not shrink the next
review to an empty increment. Findings are the inline comments of those reviews that start
a thread; whether a thread is resolved only GraphQL tells (`reviewThreads`). When it cannot
(an old GitHub Enterprise, a failing call) every finding counts as open: that can only hold
an approval back, never let one through. A thread whose last word is amelia's own
`Fixed in <sha>` reply (by an author trusted as above) is closed too, resolved or not: a
token that may not resolve threads must not hold the pull request back, nor have the same
finding closed twice; anyone who replies after it opens the finding again.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from loguru import logger
from pydantic import BaseModel, ConfigDict

from amelia.core.state import SEVERITY_ORDER, PriorFinding, Severity
from amelia.errors import GitHubError
from amelia.github.auth import TRUSTED_ROLES
from amelia.github.markers import marker, reviewed_commit
from amelia.github.models import ReviewCommentInfo, ReviewThreadInfo

if TYPE_CHECKING:
    from amelia.github.port import GitHubReads

__all__ = [
    "OpenFinding",
    "ReviewHistory",
    "finding_key",
    "load_review_history",
    "split_finding",
]

_FINDING = re.compile(
    r"\*\*(?P<severity>" + "|".join(SEVERITY_ORDER) + r")\*\*: (?P<text>.*?)"
    r"(?:\n\n`{3,}suggestion\n.*)?",
    re.DOTALL,
)


_FIXED = marker("fixed")
"""On amelia's `Fixed in <sha>` replies (see `amelia.action.modes.review._earlier_findings`)."""


class OpenFinding(BaseModel):
    """One of amelia's inline findings whose thread is not resolved."""

    model_config = ConfigDict(frozen=True)

    comment: ReviewCommentInfo
    thread_id: str | None = None
    """The thread's node id; None when GraphQL could not tell."""
    severity: Severity = "minor"
    text: str
    """The finding as the reviewer wrote it (without severity and suggestion)."""

    def as_prior(self) -> PriorFinding:
        comment = self.comment
        return PriorFinding(
            id=comment.id,
            path=comment.path,
            line=comment.line or comment.original_line,
            severity=self.severity,
            body=self.text,
        )


class ReviewHistory(BaseModel):
    model_config = ConfigDict(frozen=True)

    last_reviewed: str | None = None
    """The commit amelia's newest review names; None before the first review."""
    open_findings: tuple[OpenFinding, ...] = ()


def split_finding(body: str) -> tuple[Severity, str]:
    """An inline comment amelia rendered (`**major**: text` and maybe a suggestion) as its
    severity and text; any other body is a minor finding of its whole text."""
    found = _FINDING.fullmatch(body.strip())
    if found is None:
        return "minor", body.strip()
    severity: Severity = found["severity"]  # type: ignore[assignment]
    return severity, found["text"].strip()


def finding_key(path: str, text: str) -> tuple[str, str]:
    """What makes two findings the same: the file and the words (spacing and case aside)."""
    return path, " ".join(text.split()).casefold()


async def _trusted(github: GitHubReads, login: str, kind: str, roles: dict[str, bool]) -> bool:
    """Whether `login` (of account type `kind`) is amelia or someone with write access."""
    if kind == "Bot":
        return True
    if login not in roles:
        try:
            roles[login] = await github.get_permission(login) in TRUSTED_ROLES
        except GitHubError as error:
            logger.warning("could not check {}'s permission: {}", login, error.message)
            roles[login] = False
    return roles[login]


def _by_first_comment(threads: Iterable[ReviewThreadInfo]) -> dict[int, ReviewThreadInfo]:
    return {thread.comment_ids[0]: thread for thread in threads if thread.comment_ids}


async def load_review_history(github: GitHubReads, pull_number: int) -> ReviewHistory:
    """Read amelia's earlier reviews of pull `pull_number` (one request when there are
    none; three when there are: reviews, review comments, threads)."""
    roles: dict[str, bool] = {}
    ours: dict[int, str] = {}
    last: str | None = None
    for review in await github.list_reviews(pull_number):  # oldest first
        commit = reviewed_commit(review.body)
        if commit is not None and await _trusted(github, review.author, review.author_type, roles):
            ours[review.id] = last = commit
    if last is None:
        return ReviewHistory()
    comments = await github.list_review_comments(pull_number)  # oldest first
    last_reply: dict[int, ReviewCommentInfo] = {
        comment.in_reply_to_id: comment for comment in comments if comment.in_reply_to_id
    }

    async def closed_by_amelia(root: ReviewCommentInfo) -> bool:
        reply = last_reply.get(root.id)
        return (
            reply is not None
            and _FIXED in reply.body
            and await _trusted(github, reply.author, reply.author_type, roles)
        )

    roots = [
        comment
        for comment in comments
        if comment.in_reply_to_id is None
        and comment.review_id in ours
        and not await closed_by_amelia(comment)
    ]
    if not roots:
        return ReviewHistory(last_reviewed=last)
    try:
        threads: dict[int, ReviewThreadInfo] | None = _by_first_comment(
            await github.list_review_threads(pull_number)
        )
    except GitHubError as error:
        logger.warning(
            "could not read which review threads are resolved ({}); "
            "every earlier finding counts as open",
            error.message,
        )
        threads = None
    findings = []
    for comment in roots:
        thread = threads.get(comment.id) if threads is not None else None
        if thread is not None and thread.is_resolved:
            continue
        severity, text = split_finding(comment.body)
        findings.append(
            OpenFinding(
                comment=comment,
                thread_id=thread.id if thread else None,
                severity=severity,
                text=text,
            )
        )
    return ReviewHistory(last_reviewed=last, open_findings=tuple(findings))
