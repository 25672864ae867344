"""A GitHub client for dry runs: it reads from GitHub but records every write instead.

Each would-be write is printed and saved as one JSON file under the dry-run directory, so
a run can be rehearsed against a real repository without posting anything.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from amelia.github.client import (
    CommentInfo,
    GitHubClient,
    InlineComment,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
)
from amelia.github.options import ReviewEvent

__all__ = ["DryRunGitHubClient"]


_FAKE_IDS = itertools.count(900_000_000)


class DryRunGitHubClient(GitHubClient):
    """`GitHubClient` whose writes land in `directory` and on `stream`, not on GitHub."""

    def __init__(
        self, *args: Any, directory: Path, stream: TextIO | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self._stream = stream or sys.stdout
        self.writes: list[dict[str, Any]] = []

    def _record(self, action: str, **fields: Any) -> None:
        entry = {"action": action, **fields}
        self.writes.append(entry)
        path = self.directory / f"{len(self.writes):03d}-{action}.json"
        path.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"[dry run] would {action.replace('_', ' ')} (saved to {path}):", file=self._stream)
        body = fields.get("body")
        if isinstance(body, str):
            for line in body.rstrip().splitlines():
                print(f"    {line}", file=self._stream)
        self._stream.flush()

    def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        self._record("create_comment", issue_number=issue_number, body=body)
        return CommentInfo(id=next(_FAKE_IDS), body=body, author="amelia (dry run)")

    def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        self._record("edit_comment", comment_id=comment_id, body=body)
        return CommentInfo(id=comment_id, body=body, author="amelia (dry run)")

    def delete_comment(self, comment_id: int) -> None:
        self._record("delete_comment", comment_id=comment_id)

    def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        # Comments of this dry run exist only here; never edit a real one.
        for entry in reversed(self.writes):
            if entry.get("issue_number") == issue_number and marker in str(entry.get("body")):
                return CommentInfo(id=next(_FAKE_IDS), body=str(entry["body"]), author="amelia")
        return None

    def create_pull(self, head: str, base: str, title: str, body: str, draft: bool) -> PullInfo:
        self._record("create_pull", head=head, base=base, title=title, body=body, draft=draft)
        return PullInfo(
            number=0,
            title=title,
            body=body,
            author="amelia",
            head_ref=head,
            head_sha="",
            base_ref=base,
            draft=draft,
        )

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        self._record("update_pull", number=number, title=title, body=body)
        return self.get_pull(number)

    def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        self._record(
            "create_review",
            pull_number=pull_number,
            body=body,
            event=event,
            comments=[c.model_dump() for c in comments],
            commit_id=commit_id,
        )
        return ReviewInfo(id=next(_FAKE_IDS), state=event, commit_id=commit_id)

    def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        self._record(
            "reply_to_review_comment", pull_number=pull_number, comment_id=comment_id, body=body
        )
        return ReviewCommentInfo(id=next(_FAKE_IDS), path="", body=body, in_reply_to_id=comment_id)

    def resolve_review_thread(self, thread_id: str) -> bool:
        self._record("resolve_review_thread", thread_id=thread_id)
        return True
