"""The repository's CI as the pull request, the job summary, the review and the progress
comment show it: each workflow's conclusion with a link to its run."""

from __future__ import annotations

from amelia.core.ci import CiReport, CiRunOutcome
from amelia.github.workflows import WorkflowRunInfo
from amelia.text import code_fence

__all__ = [
    "ci_lines",
    "review_note",
    "run_line",
    "waiting_detail",
]

_ICONS = {"passed": "✅", "failed": "❌", "still running": "⏳", "did not run": "⚪"}


def _link(text: str, url: str) -> str:
    return f"[{text}]({url})" if url else text


def run_line(run: CiRunOutcome) -> str:
    """`- [CI](url): success`, with where a failed run failed."""
    kind = " (check suite of another app)" if run.app else ""
    line = f"- {_link(run.workflow, run.url)}{kind}: **{run.label}**"
    where = "; ".join(
        _link(f"job `{f.job}`", f.job_url) + (f", step `{f.step}`" if f.step else "")
        for f in run.failures
    )
    return f"{line} ({where})" if where else line


def _how(report: CiReport) -> str:
    return "started by amelia" if report.trigger == "dispatch" else "started by amelia's push"


def ci_lines(report: CiReport | None, *, logs: bool = True) -> list[str]:
    """Markdown lines: the outcome on the commit, each workflow run with its link, a
    collapsed log tail of each failure (`logs`), and the note when CI did not run."""
    if report is None:
        return []
    if not report.ran:
        return [f"> [!NOTE]\n> {report.note}"] if report.note else []
    sha = report.head_sha[:12]
    outcome = report.outcome
    head = f"{_ICONS.get(outcome, '')} Repository CI on `{sha}` ({_how(report)}): **{outcome}**"
    if outcome == "still running" and report.timeout_minutes is not None:
        head += f" after amelia waited {report.timeout_minutes:g} min"
    lines = [head.strip(), "", *(run_line(run) for run in report.runs)]
    if logs:
        for run in report.runs:
            for failure in run.failures:
                if not failure.log_tail.strip():
                    continue
                fence = code_fence(failure.log_tail)
                lines += [
                    "",
                    "<details>",
                    f"<summary>Last lines of the log of {run.workflow} / {failure.job}</summary>",
                    "",
                    fence,
                    failure.log_tail,
                    fence,
                    "",
                    "</details>",
                ]
    if report.note:
        lines += ["", f"> [!NOTE]\n> {report.note}"]
    return lines


def review_note(report: CiReport | None) -> str:
    """What the posted review says about CI: why it does not approve, or which runs
    passed; empty when CI did not run (so no review claims it)."""
    if report is None or not report.ran:
        return ""
    links = ", ".join(_link(run.workflow, run.url) + f": {run.label}" for run in report.runs)
    sha = report.head_sha[:12]
    if report.passed:
        return f"_Repository CI on `{sha}` passed ({links})._"
    if report.failed:
        return f"_Repository CI on `{sha}` failed ({links}); amelia does not approve it._"
    return (
        f"_Repository CI on `{sha}` is still running ({links}); amelia does not approve a "
        "change before its CI has passed._"
    )


def waiting_detail(head_sha: str, runs: tuple[WorkflowRunInfo, ...], minutes: float) -> str:
    """The progress comment's line while amelia waits."""
    shown = ", ".join(
        _link(run.name, run.html_url) + f" ({run.conclusion or run.status.replace('_', ' ')})"
        for run in runs
    )
    waiting = f"waiting up to {minutes:g} min for CI on {head_sha[:12]}"
    return f"{waiting}: {shown}" if shown else waiting
