"""A new review against the findings amelia's earlier reviews left open.

- **No finding twice:** a finding whose path and text match an open earlier one is not
  posted again; the body counts and links the earlier findings that still stand.
- **Fixed:** an earlier finding the reviewer of an incremental review says the push fixed,
  on lines the push changed, gets a reply `Fixed in <sha>` and its thread is resolved
  (when the token may not, that is a warning, not a failed run).
- **The verdict stays whole:** an incremental review is not `approved` while an earlier
  finding at or above `BLOCKING_SEVERITY` is still open, so neither is a review posted with
  `review_event: AUTO` or `APPROVE`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from loguru import logger
from pydantic import BaseModel, ConfigDict
from unidiff.patch import PatchSet

from amelia.core.state import SEVERITY_ORDER, ReviewResult, ReviewScope, Severity
from amelia.errors import GitHubError
from amelia.git import unquote_path
from amelia.github.markers import marker
from amelia.github.port import GitHubPort
from amelia.github.review_history import OpenFinding, ReviewHistory, finding_key
from amelia.redaction import Redactor
from amelia.text import one_line

__all__ = [
    "BLOCKING_SEVERITY",
    "Settled",
    "close_fixed",
    "fixed_reply",
    "render_earlier_findings",
    "settle",
]

BLOCKING_SEVERITY: Severity = "major"
"""Findings this serious or worse keep a pull request from being approved while open."""


class Settled(BaseModel):
    """A review's result once set against the earlier findings."""

    model_config = ConfigDict(frozen=True)

    result: ReviewResult
    """What is posted: repeats dropped, verdict held back while a blocking finding is open."""
    fixed: tuple[OpenFinding, ...] = ()
    still_open: tuple[OpenFinding, ...] = ()
    repeats: int = 0
    held_by: tuple[OpenFinding, ...] = ()
    """The open blocking findings that turned an approval into changes_requested."""


def _is_blocking(severity: Severity) -> bool:
    return SEVERITY_ORDER.index(severity) >= SEVERITY_ORDER.index(BLOCKING_SEVERITY)


def _changed_lines(push_diff: str) -> dict[str, list[tuple[int, int]]]:
    """Per file, the old-side line ranges the push's hunks cover."""
    ranges: dict[str, list[tuple[int, int]]] = {}
    for patched in PatchSet(push_diff):
        spans = ranges.setdefault(unquote_path(patched.path), [])
        for hunk in patched:
            spans.append((hunk.source_start, hunk.source_start + max(hunk.source_length, 1)))
    return ranges


def _touched(finding: OpenFinding, old: str, changed: dict[str, list[tuple[int, int]]]) -> bool:
    """Whether the push changed the finding's lines: a hunk over its line when it was made
    on the last reviewed commit, else any change to its file."""
    spans = changed.get(finding.comment.path)
    if not spans:
        return False
    line = finding.comment.original_line
    if finding.comment.original_commit_id != old or line is None:
        return True
    return any(start <= line < end for start, end in spans)


def settle(
    result: ReviewResult,
    history: ReviewHistory,
    scope: ReviewScope,
    *,
    push_diff: str = "",
    redactor: Redactor | None = None,
) -> Settled:
    """Set `result` against the earlier open findings (see the module docstring).
    `push_diff` is the diff from the last reviewed commit to the head (incremental only)."""
    redactor = redactor or Redactor()
    earlier = history.open_findings
    known = {finding_key(f.comment.path, f.text) for f in earlier}
    kept = tuple(
        comment
        for comment in result.comments
        if finding_key(comment.path, redactor.redact(comment.body.strip())) not in known
    )
    fixed: tuple[OpenFinding, ...] = ()
    if scope.kind == "incremental" and result.fixed:
        changed = _changed_lines(push_diff)
        claimed = set(result.fixed)
        fixed = tuple(
            f for f in earlier if f.comment.id in claimed and _touched(f, scope.base, changed)
        )
    fixed_ids = {f.comment.id for f in fixed}
    still_open = tuple(f for f in earlier if f.comment.id not in fixed_ids)
    update: dict[str, object] = {"comments": kept}
    held_by: tuple[OpenFinding, ...] = ()
    if scope.kind == "incremental" and result.approved:
        held_by = tuple(f for f in still_open if _is_blocking(f.severity))
        if held_by:
            worst = max((result.severity, *(f.severity for f in held_by)), key=SEVERITY_ORDER.index)
            update |= {"verdict": "changes_requested", "severity": worst}
    return Settled(
        result=result.model_copy(update=update),
        fixed=fixed,
        still_open=still_open,
        repeats=len(result.comments) - len(kept),
        held_by=held_by,
    )


def _link(finding: OpenFinding) -> str:
    comment = finding.comment
    line = comment.line or comment.original_line
    where = f"`{comment.path}:{line}`" if line else f"`{comment.path}`"
    linked = f"[{where}]({comment.html_url})" if comment.html_url else where
    return f"- {linked} **{finding.severity}**: {one_line(finding.text, limit=120)}"


def render_earlier_findings(settled: Settled, *, limit: int = 20) -> str:
    """The body's part about earlier findings; empty when there were none."""
    if not (settled.still_open or settled.fixed or settled.repeats):
        return ""
    facts = [f"{len(settled.still_open)} still open"]
    if settled.fixed:
        facts.append(f"{len(settled.fixed)} fixed by this push")
    if settled.repeats:
        facts.append(f"{settled.repeats} repeated by the reviewer and not posted again")
    lines = [f"**Earlier findings:** {', '.join(facts)}."]
    lines += [_link(finding) for finding in settled.still_open[:limit]]
    if len(settled.still_open) > limit:
        lines.append(f"- … {len(settled.still_open) - limit} more")
    if settled.held_by:
        count = len(settled.held_by)
        lines += [
            "",
            f"_Not approved: {count} earlier finding(s) of severity {BLOCKING_SEVERITY} or "
            "above are still open. Resolve their threads once they are dealt with._",
        ]
    return "\n".join(lines)


def fixed_reply(sha: str) -> str:
    return f"{marker('fixed')}\nFixed in {sha}"


async def close_fixed(
    github: GitHubPort,
    number: int,
    fixed: Sequence[OpenFinding],
    head: str,
    *,
    warn: Callable[[str], None],
) -> int:
    """Reply `Fixed in <head>` to each fixed finding and resolve its thread; returns how
    many threads were resolved. GitHub's refusals become warnings (the review is out)."""
    resolved = 0
    for finding in fixed:
        comment = finding.comment.id
        try:
            await github.reply_to_review_comment(number, comment, fixed_reply(head))
        except GitHubError as error:
            warn(f"could not reply to review comment {comment}: {error.message}")
            continue
        if finding.thread_id is None:
            continue
        try:
            if await github.resolve_review_thread(finding.thread_id):
                resolved += 1
        except GitHubError as error:
            warn(
                f"could not resolve the review thread of comment {comment} "
                f"(the token may lack the permission): {error.message}"
            )
    logger.info("{} earlier finding(s) fixed, {} thread(s) resolved", len(fixed), resolved)
    return resolved
