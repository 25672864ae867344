"""GitHub for recordings: a port that records every call, and one that replays them.

`RecordingGitHub` wraps the run's port: each read and write goes through to it and is
written to the recording with its result (or the error it raised), redacted.
`ReplayGitHub` answers reads from a recording (the same call, in the same order) and,
like the dry run, makes no write: it prints each and saves it under a directory, and
answers with what GitHub answered the recorded run. The replay's own commits stand for the
recorded run's in both (`amelia.replay.stand_ins`).
"""

from __future__ import annotations

import json
import sys
from abc import abstractmethod
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TextIO, get_type_hints

from pydantic import TypeAdapter

from amelia import errors
from amelia.errors import GitHubError
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
from amelia.github.port import READ_OPERATIONS, GitHubPort
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import (
    CheckRunInfo,
    CheckSuiteInfo,
    JobInfo,
    Polled,
    WorkflowInfo,
    WorkflowRunInfo,
)
from amelia.replay.format import GitHubCall
from amelia.replay.stand_ins import StandIns

__all__ = ["RecordingGitHub", "ReplayGitHub", "call_key"]


@cache
def _adapter(operation: str) -> TypeAdapter[Any]:
    # Names of its own (`localns`): evaluated in the port module's namespace itself, an
    # annotation such as `Polled[WorkflowRunInfo]` makes pydantic add the parametrized
    # class to that module.
    hints = get_type_hints(getattr(GitHubPort, operation), localns={})
    return TypeAdapter(hints["return"])


def _plain(value: Any) -> Any:
    """JSON-ready: models dumped, sequences as lists."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, bytes):
        return {"bytes": value.decode("utf-8", "replace")}
    return value


def _result(operation: str, value: Any) -> Any:
    if isinstance(value, dict) and set(value) == {"bytes"}:
        return str(value["bytes"]).encode("utf-8")
    return _adapter(operation).validate_python(value)


def call_key(operation: str, arguments: dict[str, Any]) -> str:
    """What identifies a call: its operation and arguments."""
    return json.dumps([operation, arguments], sort_keys=True, default=str)


class _Port(GitHubPort):
    """Every method of the port as one `_call`."""

    @abstractmethod
    async def _call(
        self, operation: str, arguments: dict[str, Any], through: Callable[[], Any]
    ) -> Any: ...

    @abstractmethod
    def _inner(self) -> GitHubPort | None: ...

    def _through(self, operation: str, **arguments: Any) -> Callable[[], Any]:
        inner = self._inner()

        def call() -> Any:
            assert inner is not None
            return getattr(inner, operation)(**arguments)

        return call

    async def _go(self, operation: str, **arguments: Any) -> Any:
        shown = {name: _plain(value) for name, value in arguments.items()}
        return await self._call(operation, shown, self._through(operation, **arguments))

    async def default_branch(self) -> str:
        return str(await self._go("default_branch"))

    async def get_file(self, path: str, ref: str) -> bytes | None:
        found: bytes | None = await self._go("get_file", path=path, ref=ref)
        return found

    async def token_facts(self) -> TokenFacts:
        facts: TokenFacts = await self._go("token_facts")
        return facts

    async def get_permission(self, user: str) -> str:
        return str(await self._go("get_permission", user=user))

    async def get_issue(self, number: int) -> IssueInfo:
        issue: IssueInfo = await self._go("get_issue", number=number)
        return issue

    async def find_comment_with_marker(self, issue_number: int, marker: str) -> CommentInfo | None:
        found: CommentInfo | None = await self._go(
            "find_comment_with_marker", issue_number=issue_number, marker=marker
        )
        return found

    async def list_labelled_issues(self, label: str, *, state: str = "open") -> list[IssueInfo]:
        found: list[IssueInfo] = await self._go("list_labelled_issues", label=label, state=state)
        return found

    async def get_pull(self, number: int) -> PullInfo:
        pull: PullInfo = await self._go("get_pull", number=number)
        return pull

    async def find_open_pull(self, head: str) -> PullInfo | None:
        pull: PullInfo | None = await self._go("find_open_pull", head=head)
        return pull

    async def get_pull_diff(self, number: int) -> str | None:
        diff: str | None = await self._go("get_pull_diff", number=number)
        return diff

    async def list_reviews(self, pull_number: int) -> list[ReviewInfo]:
        found: list[ReviewInfo] = await self._go("list_reviews", pull_number=pull_number)
        return found

    async def list_review_comments(self, pull_number: int) -> list[ReviewCommentInfo]:
        found: list[ReviewCommentInfo] = await self._go(
            "list_review_comments", pull_number=pull_number
        )
        return found

    async def list_review_threads(self, pull_number: int) -> list[ReviewThreadInfo]:
        found: list[ReviewThreadInfo] = await self._go(
            "list_review_threads", pull_number=pull_number
        )
        return found

    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        made: CommentInfo = await self._go("create_comment", issue_number=issue_number, body=body)
        return made

    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        made: CommentInfo = await self._go("edit_comment", comment_id=comment_id, body=body)
        return made

    async def delete_comment(self, comment_id: int) -> None:
        await self._go("delete_comment", comment_id=comment_id)

    async def create_pull(
        self, head: str, base: str, title: str, body: str, *, draft: bool
    ) -> PullInfo:
        made: PullInfo = await self._go(
            "create_pull", head=head, base=base, title=title, body=body, draft=draft
        )
        return made

    async def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None
    ) -> PullInfo:
        made: PullInfo = await self._go("update_pull", number=number, title=title, body=body)
        return made

    async def create_review(
        self,
        pull_number: int,
        body: str,
        event: ReviewEvent,
        *,
        comments: Sequence[InlineComment] = (),
        commit_id: str | None = None,
    ) -> ReviewInfo:
        made: ReviewInfo = await self._go(
            "create_review",
            pull_number=pull_number,
            body=body,
            event=event,
            comments=list(comments),
            commit_id=commit_id,
        )
        return made

    async def reply_to_review_comment(
        self, pull_number: int, comment_id: int, body: str
    ) -> ReviewCommentInfo:
        made: ReviewCommentInfo = await self._go(
            "reply_to_review_comment", pull_number=pull_number, comment_id=comment_id, body=body
        )
        return made

    async def resolve_review_thread(self, thread_id: str) -> bool:
        return bool(await self._go("resolve_review_thread", thread_id=thread_id))

    async def list_workflows(self) -> list[WorkflowInfo]:
        found: list[WorkflowInfo] = await self._go("list_workflows")
        return found

    async def list_workflow_runs(
        self, head_sha: str, *, event: str | None = None, etag: str | None = None
    ) -> Polled[WorkflowRunInfo]:
        found: Polled[WorkflowRunInfo] = await self._go(
            "list_workflow_runs", head_sha=head_sha, event=event, etag=etag
        )
        return found

    async def list_jobs(self, run_id: int) -> list[JobInfo]:
        found: list[JobInfo] = await self._go("list_jobs", run_id=run_id)
        return found

    async def get_job_log(self, job_id: int) -> str | None:
        found: str | None = await self._go("get_job_log", job_id=job_id)
        return found

    async def list_check_suites(
        self, ref: str, *, etag: str | None = None
    ) -> Polled[CheckSuiteInfo]:
        found: Polled[CheckSuiteInfo] = await self._go("list_check_suites", ref=ref, etag=etag)
        return found

    async def list_check_runs(self, ref: str) -> list[CheckRunInfo]:
        found: list[CheckRunInfo] = await self._go("list_check_runs", ref=ref)
        return found

    async def dispatch_workflow(self, workflow_id: int, ref: str) -> None:
        await self._go("dispatch_workflow", workflow_id=workflow_id, ref=ref)


class RecordingGitHub(_Port):
    """`inner`, with every call handed to `record` (redacting is the recorder's job)."""

    def __init__(self, inner: GitHubPort, record: Callable[[GitHubCall], None]) -> None:
        self._wrapped = inner
        self._record = record
        self._count = 0

    def _inner(self) -> GitHubPort | None:
        return self._wrapped

    async def _call(
        self, operation: str, arguments: dict[str, Any], through: Callable[[], Any]
    ) -> Any:
        kind = "read" if operation in READ_OPERATIONS else "write"
        self._count += 1
        index = self._count
        try:
            result = await through()
        except GitHubError as error:
            call = GitHubCall(
                index=index,
                operation=operation,
                kind=kind,
                arguments=arguments,
                error=type(error).__name__,
                message=error.message,
            )
            self._record(call)
            raise
        call = GitHubCall(
            index=index,
            operation=operation,
            kind=kind,
            arguments=arguments,
            result=_plain(result),
        )
        self._record(call)
        return result


class ReplayGitHub(_Port):
    """Reads answered from `calls`, writes printed and saved, as a dry run does."""

    def __init__(
        self,
        calls: Sequence[GitHubCall],
        *,
        directory: Path,
        stream: TextIO | None = None,
        stand_ins: StandIns | None = None,
    ) -> None:
        self._stand_ins = stand_ins
        """The recorded run's commits in the calls, and the replay's that stand for them."""
        self._reads: dict[str, list[GitHubCall]] = {}
        self._writes: dict[str, list[GitHubCall]] = {}
        for call in calls:
            target = self._reads if call.kind == "read" else self._writes
            target.setdefault(
                call_key(call.operation, call.arguments) if call.kind == "read" else call.operation,
                [],
            ).append(call)
        self.recorded_writes = [call for call in calls if call.kind == "write"]
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self._stream = stream or sys.stdout
        self.writes: list[dict[str, Any]] = []
        """Every write of the replay, in order: its operation and arguments."""
        self.unknown_reads: list[str] = []

    def _inner(self) -> GitHubPort | None:
        return None

    async def _call(
        self, operation: str, arguments: dict[str, Any], through: Callable[[], Any]
    ) -> Any:
        if operation in READ_OPERATIONS:
            return self._read(operation, arguments)
        return self._write(operation, arguments)

    def _read(self, operation: str, arguments: dict[str, Any]) -> Any:
        key = call_key(operation, arguments)
        if self._stand_ins is not None:
            key = self._stand_ins.as_recorded(key)
        queue = self._reads.get(key)
        if not queue:
            shown = ", ".join(f"{k}={v!r}" for k, v in arguments.items())
            self.unknown_reads.append(f"{operation}({shown})")
            raise GitHubError(
                f"replay: the recording holds no answer to {operation}({shown}): the run "
                "asked GitHub something the recorded run did not"
            )
        call = queue.pop(0) if len(queue) > 1 else queue[0]
        return self._answer(call)

    def _answer(self, call: GitHubCall) -> Any:
        if call.error is not None:
            kind = getattr(errors, call.error, GitHubError)
            if not (isinstance(kind, type) and issubclass(kind, GitHubError)):
                kind = GitHubError
            message = call.message or call.error
            if self._stand_ins is not None:
                message = self._stand_ins.as_replayed(message)
            raise kind(message)
        result = call.result
        if self._stand_ins is not None:
            result = json.loads(self._stand_ins.as_replayed(json.dumps(result)))
        return _result(call.operation, result)

    def _write(self, operation: str, arguments: dict[str, Any]) -> Any:
        entry = {"action": operation, **arguments}
        self.writes.append(entry)
        path = self.directory / f"{len(self.writes):03d}-{operation}.json"
        path.write_text(json.dumps(entry, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"[replay] would {operation.replace('_', ' ')} (saved to {path}):", file=self._stream)
        body = arguments.get("body")
        if isinstance(body, str):
            for line in body.rstrip().splitlines():
                print(f"    {line}", file=self._stream)
        self._stream.flush()
        queue = self._writes.get(operation)
        if not queue:
            raise GitHubError(
                f"replay: the recorded run made no {operation} here: the replay diverges"
            )
        call = queue.pop(0) if len(queue) > 1 else queue[0]
        return self._answer(call)
