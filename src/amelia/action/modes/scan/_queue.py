"""What one scheduled scan hands out: at most a bound of the waiting issues, in a stated order.

A scan's `issues` output feeds a matrix of plan jobs, and GitHub runs at most 256 jobs
from one matrix: a longer list makes a plan job that never starts. Each handed-out issue
is also a paid plan run. So a scan hands out at most `limit` issues: the `scan_limit`
input when the workflow sets it, else `scan.limit` of the repository's configuration,
else the input's default (20); a value above 256 is capped at 256, with a warning.

Order: oldest first (creation time, then number). `scan.prefer_labels` puts issues with
those labels first (the first label listed first), and `scan.prefer_thumbs_up` puts issues
with more 👍 reactions first within each group; both are read from the issue list's own
pages, so they cost no request. What is not handed out waits for the next scan, which
lists again: by then a handed-out issue has its plan branch and is left out (unless its
plan failed: then it is handed out again).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from amelia.action.run_settings import MATRIX_JOB_LIMIT, ScanBound, scan_bound

if TYPE_CHECKING:
    from amelia.github.models import IssueInfo
    from amelia.repo_config.model import ScanConfig

__all__ = [
    "MATRIX_JOB_LIMIT",
    "ScanBound",
    "ScanSelection",
    "order_key",
    "scan_bound",
    "select_issues",
    "without_plan",
]

_NEVER = datetime.max.replace(tzinfo=UTC)


@dataclass(frozen=True)
class ScanSelection:
    """What one scan does with the issues waiting for a plan."""

    waited: int
    """How many waited: open, labelled, without a plan branch."""
    planned_here: tuple[int, ...]
    """Handed out to this job itself (`max_issues`), in order."""
    for_matrix: tuple[int, ...]
    """Handed out in the `issues` output, in order."""
    left: tuple[int, ...]
    """Not handed out: the next scan's, in order."""

    @property
    def handed_out(self) -> int:
        return len(self.planned_here) + len(self.for_matrix)


def without_plan(labelled: Iterable[IssueInfo], planned: Collection[int]) -> list[IssueInfo]:
    """The labelled issues (not pulls) that have no plan branch yet."""
    return [
        issue for issue in labelled if not issue.is_pull_request and issue.number not in planned
    ]


def order_key(config: ScanConfig) -> Callable[[IssueInfo], tuple[int, int, datetime, int]]:
    """Sort key of the stated order (see the module docstring); smaller is handed out first."""
    preferred = [label.lower() for label in config.prefer_labels]

    def key(issue: IssueInfo) -> tuple[int, int, datetime, int]:
        labels = {label.lower() for label in issue.labels}
        group = next(
            (rank for rank, label in enumerate(preferred) if label in labels), len(preferred)
        )
        votes = -issue.thumbs_up if config.prefer_thumbs_up else 0
        created = issue.created_at or _NEVER
        if created.tzinfo is None:  # GitHub's times end in Z; a bare one is read as UTC
            created = created.replace(tzinfo=UTC)
        return group, votes, created, issue.number

    return key


def select_issues(
    waiting: Sequence[IssueInfo], *, limit: int, plan_here: int, config: ScanConfig
) -> ScanSelection:
    """At most `limit` of `waiting` in the stated order: the first `plan_here` of them for
    this job, the rest of them for the matrix; the others are left for the next scan."""
    ordered = [issue.number for issue in sorted(waiting, key=order_key(config))]
    handed = ordered[: max(0, limit)]
    here = handed[: max(0, plan_here)]
    return ScanSelection(
        waited=len(ordered),
        planned_here=tuple(here),
        for_matrix=tuple(handed[len(here) :]),
        left=tuple(ordered[len(handed) :]),
    )
