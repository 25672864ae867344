"""What a review of a pull request covers: the whole change, or only the commits pushed since
amelia last reviewed it.

`review_scope: auto` reviews a pull request whole the first time and, on a push
(`synchronize`), only the new commits; `full` always reviews the whole change;
`incremental` reviews the new commits whenever it can. `/amelia review incremental` (or
`full`) asks for one explicitly, whatever the input says. An incremental review needs the
last reviewed commit to be an ancestor of the new head, and the pull's merge base to be one
of the last reviewed commit: after a force-push or a rebase, once the base branch is merged
into the pull (GitHub's "Update branch"; the new commits would bring the base's changes
along), or without an earlier review, the review is full.
"""

from __future__ import annotations

from loguru import logger

from amelia.config import ReviewScopeSetting
from amelia.core.state import ReviewKind, ReviewScope
from amelia.errors import GitError
from amelia.git import Repo, changed_paths, head_sha, merge_base
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


def follows(repo: Repo, old: str, head: str) -> bool:
    """True when `head` builds on `old`: `old` is here and a strict ancestor of `head`."""
    try:
        old_sha = head_sha(repo, ref=old)
        return old_sha != head and merge_base(repo, old_sha, head) == old_sha
    except GitError:
        return False  # `old` is gone (force-pushed away) or shares no history with head


def _why_full(repo: Repo, last: str | None, *, head: str, merge_base_sha: str) -> str | None:
    """Why an incremental review from `last` cannot be done; None when it can."""
    if last is None:
        return "no earlier review"
    if not follows(repo, last, head):
        return f"the last reviewed commit {last[:12]} is not an ancestor of {head[:12]}"
    try:
        merged = merge_base(repo, merge_base_sha, last) != merge_base_sha
    except GitError:
        merged = True
    if merged:
        return f"the base branch was merged into the pull request since {last[:12]}"
    return None


def plan_scope(
    repo: Repo, *, merge_base_sha: str, head: str, history: ReviewHistory, kind: ReviewKind
) -> ReviewScope:
    """The scope of this review: `kind` when it can be done, else a full review."""
    changed = tuple(changed_paths(repo, merge_base_sha, head=head))
    findings = tuple(finding.as_prior() for finding in history.open_findings)
    last = history.last_reviewed
    if kind == "incremental":
        why = _why_full(repo, last, head=head, merge_base_sha=merge_base_sha)
        if why is None and last is not None:
            return ReviewScope(
                kind="incremental",
                base=last,
                head=head,
                changed_files=changed,
                open_findings=findings,
            )
        logger.info("reviewing the whole pull request: {}", why)
    return ReviewScope(
        kind="full", base=merge_base_sha, head=head, changed_files=changed, open_findings=findings
    )
