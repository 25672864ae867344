"""Hidden HTML markers the bot puts in what it posts, so it can find and ignore its own text."""

from __future__ import annotations

import re

__all__ = [
    "BODY_BEGIN",
    "BODY_END",
    "BOT_MARKER_PREFIX",
    "COMMANDS",
    "is_bot_text",
    "marker",
    "progress_marker",
    "review_marker",
    "reviewed_commit",
]


BOT_MARKER_PREFIX = "<!-- amelia:"
"""Every comment, review and PR body the bot writes contains a marker starting with this."""

COMMANDS: dict[str, str] = {
    "plan": "write an implementation plan for this issue and open a draft pull request with it",
    "implement": "implement the issue (after planning it), then review the change",
    "review": "review this pull request and post the verdict with inline comments",
    "fix": "address the open review threads of this pull request, push, reply in each "
    "thread and review again (`fix [notes]`; in a thread: that thread only)",
    "ask": "answer a question about the code in one comment, with file:line references "
    "(`ask <question>`)",
    "help": "show this list",
}
"""The comment commands, in the order the help reply lists them."""


def progress_marker(issue_number: int) -> str:
    return f"{BOT_MARKER_PREFIX}progress issue={issue_number} -->"


def marker(kind: str) -> str:
    return f"{BOT_MARKER_PREFIX}{kind} -->"


_REVIEW_MARKER = re.compile(r"<!-- amelia:review commit=(?P<sha>[0-9a-f]{40}) -->")


def review_marker(commit_sha: str) -> str:
    """The first line of every review amelia posts: it names the commit reviewed, so the
    next review of the pull request can start where this one ended."""
    return f"{BOT_MARKER_PREFIX}review commit={commit_sha} -->"


def reviewed_commit(body: str) -> str | None:
    """The commit an amelia review names on its first line; None for any other text (the
    marker counts only there: what follows it may quote model output)."""
    first = body.split("\n", 1)[0].strip()
    found = _REVIEW_MARKER.fullmatch(first)
    return found["sha"] if found else None


BODY_BEGIN = marker("begin")
BODY_END = marker("end")
"""amelia's part of a text people edit too (a pull request's description) lies between
these; what is outside belongs to people and is never rewritten."""


def is_bot_text(body: str) -> bool:
    return BOT_MARKER_PREFIX in body
