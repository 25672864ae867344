"""The bot's commits: their subject line and the person who asked as their co-author."""

from __future__ import annotations

from amelia.git import noreply_address
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["co_author", "commit_subject"]


def co_author(login: str | None, *, server_url: str = "https://github.com") -> str | None:
    """The `Co-authored-by` value for `login`: its noreply address on the GitHub at
    `server_url` (a GitHub Enterprise Server's own host there)."""
    return f"{login} <{noreply_address(login, server_url=server_url)}>" if login else None


def commit_subject(action: str, number: int, title: str) -> str:
    """`<action> issue #<n>: <title>` on one sanitized line of at most 72 characters."""
    flat = " ".join(sanitize_untrusted(title).split())
    subject = f"{action} issue #{number}: {flat}" if flat else f"{action} issue #{number}"
    return subject if len(subject) <= 72 else subject[:71] + "…"
