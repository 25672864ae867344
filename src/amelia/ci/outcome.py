"""What the runs on a commit came to: each run's conclusion and link, and for a failed run
its failing jobs and steps with the last lines of each job's log, redacted and capped."""

from __future__ import annotations

import re

from amelia.core.ci import CiFailure, CiRunOutcome
from amelia.github.port import GitHubReads
from amelia.github.workflows import JobInfo, WorkflowRunInfo
from amelia.redaction import Redactor

__all__ = [
    "FAILED_CONCLUSIONS",
    "LOG_TAIL_CHARS",
    "LOG_TAIL_LINES",
    "log_tail",
    "run_outcome",
]

LOG_TAIL_LINES = 40
LOG_TAIL_CHARS = 4_000
MAX_FAILED_JOBS = 3
FAILED_CONCLUSIONS = frozenset({"failure", "timed_out", "cancelled", "startup_failure"})
_TIMESTAMP = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def log_tail(log: str, redactor: Redactor) -> str:
    """The last `LOG_TAIL_LINES` lines of a job's log, without GitHub's timestamps and
    terminal colours, redacted, at most `LOG_TAIL_CHARS` characters."""
    lines = [_ANSI.sub("", _TIMESTAMP.sub("", line)) for line in log.splitlines()]
    while lines and not lines[-1].strip():
        lines.pop()
    tail = redactor.redact("\n".join(lines[-LOG_TAIL_LINES:]))
    if len(tail) > LOG_TAIL_CHARS:
        tail = "…" + tail[-(LOG_TAIL_CHARS - 1) :]
    return tail


def _failed_step(job: JobInfo) -> str | None:
    for step in job.steps:
        if step.conclusion in FAILED_CONCLUSIONS:
            return step.name
    return None


async def run_outcome(
    github: GitHubReads, run: WorkflowRunInfo, redactor: Redactor
) -> CiRunOutcome:
    """`run` as the report shows it; a finished run that did not pass gets its failing
    jobs (at most `MAX_FAILED_JOBS`) with their step and log tail."""
    outcome = CiRunOutcome(
        workflow=run.name or run.path,
        status=run.status,
        conclusion=run.conclusion,
        url=run.html_url,
    )
    if not run.completed or run.conclusion not in FAILED_CONCLUSIONS:
        return outcome
    failed = [j for j in await github.list_jobs(run.id) if j.conclusion in FAILED_CONCLUSIONS]
    failures: list[CiFailure] = []
    for job in failed[:MAX_FAILED_JOBS]:
        log = await github.get_job_log(job.id)
        failures.append(
            CiFailure(
                job=job.name,
                step=_failed_step(job),
                job_url=job.html_url,
                log_tail=log_tail(log, redactor) if log else "",
            )
        )
    return outcome.model_copy(update={"failures": tuple(failures)})
