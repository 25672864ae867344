"""Answer where a command was given: in its review thread, else on the issue or pull."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amelia.github.events import Command

if TYPE_CHECKING:
    from amelia.github.port import GitHubPort

__all__ = ["post_where_asked"]


async def post_where_asked(github: GitHubPort, command: Command, body: str) -> str:
    """Post `body` (already rendered and redacted) as a reply in the command's review
    thread (`in_reply_to` its first comment), or as a comment on its issue or pull; the
    posted comment's URL. Nothing is posted for a command about no issue."""
    if command.number is None:
        return ""
    if command.reply_to is not None:
        reply = await github.reply_to_review_comment(command.number, command.reply_to, body)
        return reply.html_url
    comment = await github.create_comment(command.number, body)
    return comment.html_url
