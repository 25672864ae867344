"""What a review of a pull request covers: the whole change, or only the commits pushed since
amelia last reviewed it.

`review_scope: auto` reviews a pull request whole the first time and, on a push
(`synchronize`), only the new commits; `full` always reviews the whole change;
`incremental` reviews the new commits whenever it can. `/amelia review incremental` (or
`full`) asks for one explicitly, whatever the input says. An incremental review needs the
last reviewed commit to be an ancestor of the new head: after a force-push or a rebase, or
without an earlier review, the review is full.
"""

from __future__ import annotations

from pathlib import Path

from loguru import logger

from amelia.config import ReviewScopeSetting
from amelia.core.state import ReviewKind, ReviewScope
from amelia.errors import GitError
from amelia.git import changed_paths, head_sha, merge_base
from amelia.github.review_history import ReviewHistory

__all__ = ["follows", "plan_scope", "requested_kind"]


def requested_kind(setting: ReviewScopeSetting, *, on_push: bool, notes: str = "") -> ReviewKind:
    """The kind of review asked for: by the command's notes, else by the input (`auto`:
    incremental on a push, full otherwise)."""
    words = notes.lower().split()
    if "incremental" in words:
        return "incremental"
    if "full" in words:
        return "full"
    if setting == "auto":
        return "incremental" if on_push else "full"
    return setting


def follows(repo: Path, old: str, head: str) -> bool:
    """True when `head` builds on `old`: `old` is here and a strict ancestor of `head`."""
    try:
        old_sha = head_sha(repo, ref=old)
        return old_sha != head and merge_base(repo, old_sha, head) == old_sha
    except GitError:
        return False  # `old` is gone (force-pushed away) or shares no history with head


def plan_scope(
    repo: Path, *, merge_base_sha: str, head: str, history: ReviewHistory, kind: ReviewKind
) -> ReviewScope:
    """The scope of this review: `kind` when it can be done, else a full review."""
    changed = tuple(changed_paths(repo, merge_base_sha, head=head))
    findings = tuple(finding.as_prior() for finding in history.open_findings)
    last = history.last_reviewed
    if kind == "incremental" and last is not None and follows(repo, last, head):
        return ReviewScope(
            kind="incremental",
            base=last,
            head=head,
            changed_files=changed,
            open_findings=findings,
        )
    if kind == "incremental":
        why = (
            "no earlier review"
            if last is None
            else f"the last reviewed commit {last[:12]} is not an ancestor of {head[:12]}"
        )
        logger.info("reviewing the whole pull request: {}", why)
    return ReviewScope(
        kind="full", base=merge_base_sha, head=head, changed_files=changed, open_findings=findings
    )
