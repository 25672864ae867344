"""Markdown the bot posts: progress, help, refusals, failed tool calls and PR reviews.

Everything a model or a tool produced passes through a `Redactor` before it is rendered,
and every body carries a hidden marker so the bot can find its comments again and never
mistakes them for commands.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict
from unidiff.patch import PatchSet

from amelia.core.state import (
    SEVERITY_ORDER,
    ReviewComment,
    ReviewResult,
    ReviewScope,
    ToolResult,
)
from amelia.errors import GitHubNotFoundError
from amelia.git import unquote_path
from amelia.github.events import help_reply
from amelia.github.markers import marker, progress_marker, review_marker
from amelia.github.models import CommentInfo, InlineComment
from amelia.redaction import Redactor
from amelia.text import code_fence, one_line

if TYPE_CHECKING:
    from amelia.github.port import GitHubPort

__all__ = [
    "MAX_COMMENT_CHARS",
    "MAX_REASON_CHARS",
    "Outcome",
    "ProgressComment",
    "ProgressReport",
    "Stage",
    "StageStatus",
    "build_review",
    "commentable_lines",
    "link_references",
    "render_answer",
    "render_help",
    "render_progress",
    "render_reply",
    "render_tool_errors",
    "reviewed_range",
]


StageStatus = Literal["pending", "running", "done", "failed", "skipped"]
Outcome = Literal["running", "succeeded", "failed"]

_STAGE_ICON: dict[str, str] = {
    "pending": "⬜",
    "running": "⏳",
    "done": "✅",
    "failed": "❌",
    "skipped": "➖",
}
MAX_COMMENT_CHARS = 60_000
"""GitHub refuses comment bodies over 65,536 characters; keep a margin for the header."""


class Stage(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    status: StageStatus = "pending"
    detail: str = ""


class ProgressReport(BaseModel):
    """What the progress comment shows; the pipeline builds a new one at each step."""

    model_config = ConfigDict(frozen=True)

    issue_number: int
    command: str
    requested_by: str | None = None
    run_url: str | None = None
    stages: tuple[Stage, ...] = ()
    outcome: Outcome = "running"
    duration_seconds: float | None = None
    cost_usd: float | None = None
    links: tuple[tuple[str, str], ...] = ()
    """(label, url) pairs shown with the outcome: the plan, the pull request, the review."""
    failure_reason: str | None = None
    notes: tuple[str, ...] = ()
    """Things people should know whatever the outcome (files left out of a commit, strings
    that look like credentials in what was pushed), one line each."""
    failure_details: str | None = None
    """Output explaining a failure (its last lines), shown collapsed under the outcome."""
    sections: tuple[str, ...] = ()
    """Blocks of markdown after the notes: what was not pushed and its patch."""


MAX_DETAILS_CHARS = 4000
"""The end of a failure's output shown on the progress comment."""
MAX_REASON_CHARS = 800
"""A failure's reason on the progress comment: room for where the work was saved, a
remote's own words for refusing a push, and what to change."""


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    return f"{minutes}m {secs:02d}s" if minutes else f"{secs}s"


def render_progress(report: ProgressReport, redactor: Redactor) -> str:
    """The progress comment: who asked, what runs, stage checklist, outcome, links."""
    who = f" for @{report.requested_by}" if report.requested_by else ""
    lines = [progress_marker(report.issue_number), f"### amelia: `{report.command}`{who}", ""]
    if report.run_url:
        lines += [f"[Workflow run and logs]({report.run_url})", ""]
    for stage in report.stages:
        detail = f": {one_line(redactor.redact(stage.detail), limit=200)}" if stage.detail else ""
        lines.append(f"- {_STAGE_ICON[stage.status]} {stage.name}{detail}")
    if report.stages:
        lines.append("")
    facts = []
    if report.duration_seconds is not None:
        facts.append(f"took {_duration(report.duration_seconds)}")
    if report.cost_usd is not None:
        facts.append(f"cost ${report.cost_usd:.2f}")
    suffix = f" ({', '.join(facts)})" if facts else ""
    if report.outcome == "succeeded":
        lines.append(f"**Done**{suffix}.")
    elif report.outcome == "failed":
        reason = one_line(
            redactor.redact(report.failure_reason or "unknown error"), limit=MAX_REASON_CHARS
        )
        logs = f" See [the log]({report.run_url})." if report.run_url else ""
        stop = "" if reason.endswith((".", "!", "?")) else "."
        lines.append(f"**Failed**{suffix}: {reason}{stop}{logs}")
        if report.failure_details and report.failure_details.strip():
            details = redactor.redact(report.failure_details.rstrip())
            if len(details) > MAX_DETAILS_CHARS:  # the end explains, keep it
                details = "…" + details[-MAX_DETAILS_CHARS:]
            fence = code_fence(details)
            lines += ["", "<details>", "<summary>Last lines</summary>", "", fence, details]
            lines += [fence, "", "</details>"]
    else:
        lines.append("_Working…_")
    if report.notes:
        lines += ["", *(f"- ⚠️ {redactor.redact(note)}" for note in report.notes)]
    for section in report.sections:
        lines += ["", redactor.redact(section.rstrip())]
    if report.links:
        lines += ["", *(f"- [{label}]({url})" for label, url in report.links)]
    return "\n".join(lines).rstrip() + "\n"


def render_help(trigger_phrase: str) -> str:
    return f"{marker('help')}\n{help_reply(trigger_phrase)}\n"


def render_reply(text: str, redactor: Redactor) -> str:
    """A plain reply (unknown command, refusal) with the bot's marker."""
    return f"{marker('reply')}\n{redactor.redact(text)}\n"


_REFERENCE = re.compile(r"`(?P<path>[\w./-]{1,300}):(?P<start>\d{1,7})(?:-(?P<end>\d{1,7}))?`")


def link_references(text: str, url_of: Callable[[str, int, int | None], str | None]) -> str:
    """Turn each `` `path:line` `` (or `` `path:start-end` ``) in `text` into a link,
    where `url_of(path, start, end)` knows the file (None: the text stays as it is)."""

    def link(match: re.Match[str]) -> str:
        start = int(match["start"])
        end = int(match["end"]) if match["end"] else None
        url = url_of(match["path"], start, end)
        return f"[{match[0]}]({url})" if url else match[0]

    return _REFERENCE.sub(link, text)


def render_answer(answer: str, asked_by: str | None, redactor: Redactor) -> str:
    """The answerer's reply: the bot's marker, who asked, the answer (redacted, cut to fit
    one comment)."""
    who = f"@{asked_by} " if asked_by else ""
    body = _truncate(redactor.redact(answer.strip()), MAX_COMMENT_CHARS)
    return f"{marker('answer')}\n{who}{body}\n"


def _truncate(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters)"


def render_tool_errors(
    results: Sequence[ToolResult], redactor: Redactor, *, max_output: int = 2000
) -> str | None:
    """One comment listing every error-flagged tool result, each collapsed; None if none."""
    errors = [result for result in results if result.is_error]
    if not errors:
        return None
    lines = [
        marker("tool-errors"),
        f"### {len(errors)} tool call(s) came back as errors",
        "",
    ]
    size = 0
    for shown, result in enumerate(errors):
        entry = _tool_error_entry(result, redactor, max_output)
        size += sum(len(line) + 1 for line in entry)
        if size > MAX_COMMENT_CHARS:
            lines.append(f"… {len(errors) - shown} more not shown; see the workflow log.")
            break
        lines += entry
    return "\n".join(lines)


def _tool_error_entry(result: ToolResult, redactor: Redactor, max_output: int) -> list[str]:
    summary = f"{result.agent}: {result.tool_name}"
    tool_input = json.dumps(result.tool_input or {}, indent=2, default=str)
    # Redact before truncating: a cut would leave the first half of a secret unmasked.
    tool_input = _truncate(redactor.redact(tool_input), max_output)
    output = _truncate(redactor.redact(result.output), max_output)
    fence_in, fence_out = code_fence(tool_input), code_fence(output)
    return [
        "<details>",
        f"<summary>{_html_escape(redactor.redact(summary))}</summary>",
        "",
        "Input:",
        f"{fence_in}json",
        tool_input,
        fence_in,
        "",
        "Output:",
        fence_out,
        output,
        fence_out,
        "",
        "</details>",
        "",
    ]


def _html_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def commentable_lines(diff_text: str) -> dict[str, set[int]]:
    """Per file, the new-side line numbers inside the diff's hunks (added or context lines).

    Files are named as in the repository: git's quoting of a name such as `é.txt`
    (`"\\303\\251.txt"`) is undone, so findings on them are placed inline too."""
    lines: dict[str, set[int]] = {}
    for patched in PatchSet(diff_text):
        if patched.is_removed_file:
            continue
        targets = lines.setdefault(unquote_path(patched.path), set())
        for hunk in patched:
            targets.update(
                line.target_line_no
                for line in hunk
                if line.target_line_no is not None and (line.is_added or line.is_context)
            )
    return lines


def _comment_body(comment: ReviewComment, redactor: Redactor) -> str:
    text = f"**{comment.severity}**: {redactor.redact(comment.body.strip())}"
    if comment.suggestion is not None:
        suggestion = redactor.redact(comment.suggestion.rstrip("\n"))
        fence = code_fence(suggestion)
        text += f"\n\n{fence}suggestion\n{suggestion}\n{fence}"
    return text


def reviewed_range(scope: ReviewScope) -> str:
    """`Reviewed <base>..<head> (full)` or `Reviewed <old>..<new> (incremental)`."""
    return f"Reviewed {scope.base[:12]}..{scope.head[:12]} ({scope.kind})"


def build_review(
    result: ReviewResult,
    diff_text: str,
    commit_sha: str,
    *,
    redactor: Redactor | None = None,
    scope: ReviewScope | None = None,
    all_pushed: bool = True,
    ci_passed: bool = True,
) -> tuple[str, list[InlineComment]]:
    """The review body and the inline comments GitHub will accept for this diff.

    Without `all_pushed` (parts of the change are not on the branch) an approval is headed
    "Not all pushed", never "Approved"; without `ci_passed` (the repository's CI on the
    commit failed or did not finish) it is headed "CI has not passed".

    A finding on a line outside every hunk (or without a line) would make GitHub refuse
    the whole review with 422, so such findings are listed in the body instead. The body's
    first line names `commit_sha` (see `review_marker`); with `scope` it names the range
    reviewed too.
    """
    redactor = redactor or Redactor()
    allowed = commentable_lines(diff_text)
    inline: list[InlineComment] = []
    outside: list[ReviewComment] = []
    for comment in result.comments:
        if comment.line is not None and comment.line in allowed.get(comment.path, set()):
            inline.append(
                InlineComment(
                    path=comment.path, line=comment.line, body=_comment_body(comment, redactor)
                )
            )
        else:
            outside.append(comment)
    if not result.approved:
        verdict = "❌ Changes requested"
    elif not all_pushed:
        verdict = "⚠️ Not all pushed (the reviewer found nothing to change)"
    elif not ci_passed:
        verdict = "⚠️ CI has not passed (the reviewer found nothing to change)"
    else:
        verdict = "✅ Approved"
    counts = {level: 0 for level in SEVERITY_ORDER}
    for comment in result.comments:
        counts[comment.severity] += 1
    breakdown = ", ".join(
        f"{counts[level]} {level}"
        for level in reversed(SEVERITY_ORDER)
        if level != "none" and counts[level]
    )
    lines = [
        review_marker(commit_sha),
        f"## amelia review: {verdict}",
        "",
        f"**Severity:** {result.severity}",
        "",
        redactor.redact(result.summary.strip()),
        "",
        f"**Findings:** {len(result.comments)}"
        + (f" ({breakdown})" if breakdown else "")
        + f"; {len(inline)} inline, {len(outside)} listed below.",
        f"**Commit reviewed:** `{commit_sha[:12]}`",
    ]
    if scope is not None:
        lines += ["", reviewed_range(scope)]
    if outside:
        lines += ["", "### Findings outside the changed lines", ""]
        size = sum(len(line) + 1 for line in lines)
        for listed, comment in enumerate(outside):
            # The path is model output too; only inline comments' paths are checked files.
            path = redactor.redact(comment.path)
            where = f"{path}:{comment.line}" if comment.line else path
            body = _comment_body(comment, redactor).replace("\n", "\n  ")
            size += len(body) + len(where) + 6
            if size > MAX_COMMENT_CHARS:
                lines.append(f"- … {len(outside) - listed} more findings not shown")
                break
            lines.append(f"- `{where}` {body}")
    return "\n".join(lines) + "\n", inline


class ProgressComment:
    """The single comment a run keeps up to date on its issue or pull request.

    It reuses a comment of an earlier run (found by its hidden marker) instead of adding a
    new one, and edits at most once per `min_interval` seconds, because each edit is an
    API write counted against secondary rate limits. Final updates always go out.
    """

    def __init__(
        self,
        github: GitHubPort,
        issue_number: int,
        *,
        min_interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._github = github
        self._issue_number = issue_number
        self._min_interval = min_interval
        self._clock = clock
        self._marker = progress_marker(issue_number)
        self.comment: CommentInfo | None = None
        self._posted_body: str | None = None
        self._posted_at: float | None = None
        self._pending: str | None = None

    async def publish(self, body: str, *, final: bool = False) -> bool:
        """Post `body` now if allowed, else keep it for `flush`. True when it was posted."""
        if self._marker not in body:
            body = f"{self._marker}\n{body}"
        if body == self._posted_body:
            self._pending = None
            return False
        now = self._clock()
        if not final and self._posted_at is not None and now - self._posted_at < self._min_interval:
            self._pending = body
            return False
        await self._write(body, now)
        return True

    async def flush(self) -> bool:
        """Post a held-back update, if any, regardless of the interval."""
        if self._pending is None:
            return False
        return await self.publish(self._pending, final=True)

    async def _write(self, body: str, now: float) -> None:
        github = self._github
        if self.comment is None:
            self.comment = await github.find_comment_with_marker(self._issue_number, self._marker)
        if self.comment is not None:
            try:
                self.comment = await github.edit_comment(self.comment.id, body)
            except GitHubNotFoundError:
                self.comment = None  # someone deleted it meanwhile: start a new one
        if self.comment is None:
            created = await github.create_comment(self._issue_number, body)
            self.comment = await self._adopt_older_twin(created, body)
        self._posted_body = body
        self._posted_at = now
        self._pending = None

    async def _adopt_older_twin(self, created: CommentInfo, body: str) -> CommentInfo:
        """Two runs for one issue (no workflow `concurrency` group) may both find no comment
        and both post one. Comment ids grow with time, so the younger run deletes its own
        and takes over the older one: the issue keeps a single progress comment."""
        github = self._github
        oldest = await github.find_comment_with_marker(self._issue_number, self._marker)
        if oldest is None or oldest.id >= created.id:
            return created
        await github.delete_comment(created.id)
        return await github.edit_comment(oldest.id, body)
