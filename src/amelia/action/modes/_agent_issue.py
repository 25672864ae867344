"""The one way what people wrote on GitHub reaches the agents: an issue or pull request
becomes their `Issue`, the notes after a command their `PersonRequest`."""

from __future__ import annotations

from amelia.core.state import PersonRequest
from amelia.core.types import Issue
from amelia.github.events import Command
from amelia.github.models import IssueInfo, PullInfo
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["agent_issue", "agent_request"]


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


def agent_request(command: Command) -> PersonRequest | None:
    """The text after the command word, sanitized, marked with who wrote it; None when the
    command came without notes (or from no one: a schedule)."""
    text = sanitize_untrusted(command.instructions)
    if not text or not command.requested_by:
        return None
    return PersonRequest(login=command.requested_by, text=text)
