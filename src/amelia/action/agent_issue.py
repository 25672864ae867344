"""The one way an issue or pull request fetched from GitHub becomes the agents' `Issue`."""

from __future__ import annotations

from amelia.core.types import Issue
from amelia.github.client import IssueInfo, PullInfo
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["agent_issue"]


def agent_issue(item: IssueInfo | PullInfo) -> Issue:
    """`item` as the agents see it: title and body sanitized, the rest as fetched.

    A pull request's id is `pr-<n>`, so it is never mistaken for the issue of that number.
    """
    number = item.number
    return Issue(
        id=f"pr-{number}" if isinstance(item, PullInfo) else str(number),
        number=number,
        title=sanitize_untrusted(item.title),
        description=sanitize_untrusted(item.body),
        author=item.author,
        url=item.html_url or None,
    )
