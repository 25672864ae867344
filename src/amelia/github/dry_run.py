"""The dry run: GitHub read for real, every write recorded instead of made.

`DryRunGitHub` is built from a `GitHubReads` (never from something that can write): reads
go through to it, and each write of the port is printed and saved as one JSON file under
the dry-run directory (`001-create_comment.json`, …), so a run can be rehearsed against a
real repository without posting anything. It implements every write of `GitHubWrites`
itself: a write added to the port leaves it uninstantiable until it records that write too.
"""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from amelia.github.models import (
    CommentInfo,
    InlineComment,
    IssueInfo,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
    ReviewThreadInfo,
)
from amelia.github.options import ReviewEvent
from amelia.github.port import GitHubPort, GitHubReads
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    WorkflowInfo,
    WorkflowRunInfo,
)

__all__ = ["DryRunGitHub"]


_FAKE_IDS = itertools.count(900_000_000)


class DryRunGitHub(GitHubPort):
    """Reads from `reads`; writes land in `directory` and on `stream`, not on GitHub."""

    def __init__(
        self, reads: GitHubReads, *, directory: Path, stream: TextIO | None = None
    ) -> None:
        self._reads = reads
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self._stream = stream or sys.stdout
        self.writes: list[dict[str, Any]] = []
        """Every recorded write, in order: its `action` (the port's method) and arguments."""

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

    # reads: through to GitHub ------------------------------------------------------------------

    async def default_branch(self) -> str:
        return await self._reads.default_branch()

    async def get_file(self, path: str, ref: str) -> bytes | None:
        return await self._reads.get_file(path, ref)

    async def token_facts(self) -> TokenFacts:
        return await self._reads.token_facts()

    async def get_permission(self, user: str) -> str:
        return await self._reads.get_permission(user)

    async def get_issue(self, number: int) -> IssueInfo:
        return await self._reads.get_issue(number)

    async def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        # Comments of this dry run exist only here; never edit a real one.
        for entry in reversed(self.writes):
            if entry.get("issue_number") == issue_number and marker in str(entry.get("body")):
                return CommentInfo(id=next(_FAKE_IDS), body=str(entry["body"]), author="amelia")
        return None

    async def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        return await self._reads.list_labelled_issues(label, state=state)

    async def get_pull(self, number: int) -> PullInfo:
        return await self._reads.get_pull(number)

    async def find_open_pull(self, head: str) -> PullInfo | None:
        return await self._reads.find_open_pull(head)

    async def get_pull_diff(self, number: int) -> str | None:
        return await self._reads.get_pull_diff(number)

    async def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        return await self._reads.list_reviews(pull_number)

    async def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        return await self._reads.list_review_comments(pull_number)

    async def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        return await self._reads.list_review_threads(pull_number)

    async def list_workflows(self) -> list[WorkflowInfo]:
        return await self._reads.list_workflows()

    async def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        return await self._reads.list_workflow_runs(head_sha, event=event, etag=etag)

    async def list_jobs(self, run_id: int) -> list[JobInfo]:
        return await self._reads.list_jobs(run_id)

    async def get_job_log(self, job_id: int) -> str | None:
        return await self._reads.get_job_log(job_id)

    async def list_check_suites(
        self, ref: str, *, etag: str | None = None
    ) -> Polled[CheckSuiteInfo]:
        return await self._reads.list_check_suites(ref, etag=etag)

    async def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        return await self._reads.list_check_runs(ref)

    # writes: recorded ----------------------------------------------------------------------

    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        self._record("create_comment", issue_number=issue_number, body=body)
        return CommentInfo(id=next(_FAKE_IDS), body=body, author="amelia (dry run)")

    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        self._record("edit_comment", comment_id=comment_id, body=body)
        return CommentInfo(id=comment_id, body=body, author="amelia (dry run)")

    async def delete_comment(self, comment_id: int) -> None:
        self._record("delete_comment", comment_id=comment_id)

    async def create_pull(
        self, head: str, base: str, title: str, body: str, *, draft: bool
    ) -> PullInfo:
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

    async def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        self._record("update_pull", number=number, title=title, body=body)
        return await self._reads.get_pull(number)

    async def create_review(
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

    async def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        self._record(
            "reply_to_review_comment", pull_number=pull_number, comment_id=comment_id, body=body
        )
        return ReviewCommentInfo(id=next(_FAKE_IDS), path="", body=body, in_reply_to_id=comment_id)

    async def resolve_review_thread(self, thread_id: str) -> bool:
        self._record("resolve_review_thread", thread_id=thread_id)
        return True

    async def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        self._record("dispatch_workflow", workflow_id=workflow_id, ref=ref)
