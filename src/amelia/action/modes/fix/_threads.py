"""The open review threads of a pull request that `/amelia fix` gives the developer, and
the developer's word on each.

A thread counts when nobody resolved it and it starts with a comment of a person (not a
bot) or with one of amelia's own findings (an inline comment of one of its reviews, see
`amelia.github.review_history`). A thread amelia already answered with a fix reply is
done. Every comment's text is sanitized; the comment that asked for the fix is left out
(its notes reach the developer as the request).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from loguru import logger

from amelia.core.state import ReviewThread, ThreadComment
from amelia.errors import GitHubError
from amelia.github.markers import is_bot_text, marker
from amelia.github.models import ReviewCommentInfo
from amelia.github.port import GitHubReads
from amelia.github.review_history import load_review_history
from amelia.github.sanitize import sanitize_untrusted

__all__ = ["FIX_REPLY", "ThreadOutcome", "open_threads", "outcomes", "reply_text"]

FIX_REPLY = marker("fix-reply")
"""In every reply amelia posts in a thread it was asked to fix."""
MAX_THREADS = 50
_OUTCOME = re.compile(
    r"^\W*thread\s+#?(?P<id>\d+)\s*[:\-–—]\s*(?P<kind>addressed|not changed|unchanged)"
    r"\s*[:\-–—]?\s*(?P<text>.*)$",
    re.IGNORECASE | re.MULTILINE,
)


def _is_person(comment: ReviewCommentInfo) -> bool:
    return comment.author_type != "Bot" and not comment.author.lower().endswith("[bot]")


async def open_threads(
    github: GitHubReads,
    pull_number: int,
    *,
    only: int | None = None,
    skip_comment: int | None = None,
    trigger_phrase: str = "/amelia",
) -> list[ReviewThread]:
    """The threads to address, oldest first; with `only`, just the thread that starts with
    that review comment (whatever its state: someone asked in it). A thread a command
    starts (`/amelia <question>`) is a conversation with amelia, not a review comment."""
    comments = await github.list_review_comments(pull_number)
    by_root: dict[int, list[ReviewCommentInfo]] = {}
    for comment in comments:
        by_root.setdefault(comment.in_reply_to_id or comment.id, []).append(comment)
    if only is not None:
        wanted = [only] if only in by_root else []
    else:
        history = await load_review_history(github, pull_number)
        findings = {f.comment.id for f in history.open_findings}
        resolved = await _resolved_roots(github, pull_number)
        wanted = [
            root
            for root, thread in by_root.items()
            if root not in resolved
            and thread[0].id == root
            and (root in findings or _is_review_comment(thread[0], trigger_phrase))
            and not any(FIX_REPLY in comment.body for comment in thread)
        ][:MAX_THREADS]
    threads = []
    for root in wanted:
        thread = by_root[root]
        first = thread[0]
        texts = tuple(
            ThreadComment(author=c.author, body=sanitize_untrusted(c.body))
            for c in thread
            if c.id != skip_comment and c.body.strip()
        )
        threads.append(
            ReviewThread(
                id=root,
                path=first.path,
                line=first.line or first.original_line,
                diff_hunk=first.diff_hunk,
                comments=texts,
            )
        )
    return threads


def _is_review_comment(comment: ReviewCommentInfo, trigger_phrase: str) -> bool:
    """A person's comment, neither amelia's text nor a command to it."""
    words = comment.body.split(maxsplit=1)
    command = bool(words) and words[0].lower() == trigger_phrase.lower()
    return _is_person(comment) and not is_bot_text(comment.body) and not command


async def _resolved_roots(github: GitHubReads, pull_number: int) -> set[int]:
    try:
        threads = await github.list_review_threads(pull_number)
    except GitHubError as error:
        logger.warning("could not read which review threads are resolved: {}", error.message)
        return set()
    return {t.comment_ids[0] for t in threads if t.is_resolved and t.comment_ids}


@dataclass(frozen=True, kw_only=True)
class ThreadOutcome:
    """What the developer said about one thread: addressed or not, in one line."""

    addressed: bool
    text: str


def outcomes(developer_output: str) -> dict[int, ThreadOutcome]:
    """The `thread <id>: addressed|not changed: <line>` lines of the developer's summary
    (the last word on a thread wins)."""
    found: dict[int, ThreadOutcome] = {}
    for match in _OUTCOME.finditer(developer_output):
        kind = match["kind"].lower()
        found[int(match["id"])] = ThreadOutcome(
            addressed=kind == "addressed", text=" ".join(match["text"].split())
        )
    return found


def reply_text(outcome: ThreadOutcome | None, commit: str | None) -> str:
    """The reply in a thread: `Addressed in <sha>: <line>`, or why nothing changed."""
    if outcome is None:
        return (
            "Not changed: the developer did not say what it did about this thread."
            if commit is None
            else f"Not changed in {commit[:12]}: the developer did not report on this thread."
        )
    text = outcome.text or "(no details)"
    if outcome.addressed and commit is not None:
        return f"Addressed in {commit[:12]}: {text}"
    if outcome.addressed:
        return f"Not changed: the developer meant to ({text}), but nothing was committed."
    return f"Not changed: {text}"
