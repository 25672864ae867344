"""A verdict never approves a change whose repository CI failed on the pushed commit.

The CI outcome (`ExecutionState.last_ci`) is observed by amelia, like the test command's:
a failed run turns `approved` into `changes_requested` with the failure as the first
finding, so the loop gives the developer another round with the failing job's log. CI that
did not finish in time is no failure the developer can fix: the verdict stays, and the
mode posts it without approving (see `CiReport.blocks_approval`).
"""

from __future__ import annotations

from amelia.core.ci import CiReport
from amelia.core.state import ExecutionState, ReviewComment, ReviewResult

__all__ = ["CI_FINDING_PATH", "ci_finding", "enforce_ci"]

CI_FINDING_PATH = "repository CI"
"""Where the finding a failed CI becomes is filed (no file of the change)."""


def ci_finding(report: CiReport) -> str:
    """One sentence naming each failed workflow, job and step."""
    parts: list[str] = []
    for run in report.runs:
        if not run.finished or run.passed:
            continue
        where = "; ".join(
            f"job `{f.job}`" + (f", step `{f.step}`" if f.step else "") for f in run.failures
        )
        parts.append(f"`{run.workflow}` {run.label}" + (f" ({where})" if where else ""))
    return f"The repository's CI failed on `{report.head_sha[:12]}`: " + "; ".join(parts) + "."


def enforce_ci(state: ExecutionState) -> ExecutionState:
    """`approved` becomes `changes_requested` while the CI on the pushed commit fails, and
    the failure is the first finding of any verdict."""
    report, review = state.last_ci, state.last_review
    if report is None or review is None or not report.failed:
        return state
    finding = ReviewComment(path=CI_FINDING_PATH, severity="major", body=ci_finding(report))
    if any(comment.body == finding.body for comment in review.comments):
        return state
    severity = review.severity if review.severity in ("major", "critical") else "major"
    summary = review.summary
    if review.approved:
        summary = f"The repository's CI fails, so this cannot be approved yet. {summary}"
    enforced = ReviewResult(
        verdict="changes_requested",
        severity=severity,
        summary=summary,
        comments=(finding, *review.comments),
    )
    return state.evolve(last_review=enforced)
