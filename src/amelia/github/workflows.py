"""GitHub Actions and checks as the port's models: workflows, their runs, jobs and steps,
check suites and check runs of a commit, and the triggers a workflow file declares.

`Polled` is the answer of a conditional read: GitHub answers `304 Not Modified` (which
costs no rate limit) when the `ETag` sent back still matches, and the port then returns
`items=None`.
"""

from __future__ import annotations

import re
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict

__all__ = [
    "CheckRunInfo",
    "CheckSuiteInfo",
    "JobInfo",
    "Polled",
    "StepInfo",
    "WorkflowInfo",
    "WorkflowRunInfo",
    "check_run_info",
    "check_suite_info",
    "job_info",
    "runs_amelia",
    "workflow_info",
    "workflow_run_info",
    "workflow_triggers",
]

_CONFIG = ConfigDict(frozen=True, defer_build=True)
T = TypeVar("T")


class WorkflowInfo(BaseModel):
    """A workflow of the repository, as `GET …/actions/workflows` lists it."""

    model_config = _CONFIG

    id: int
    name: str
    path: str
    """Its file, `.github/workflows/<name>.yml`."""
    state: str = "active"
    html_url: str = ""

    @property
    def file_name(self) -> str:
        return self.path.rsplit("/", 1)[-1]


class WorkflowRunInfo(BaseModel):
    """One run of a workflow."""

    model_config = _CONFIG

    id: int
    name: str
    workflow_id: int
    path: str = ""
    head_branch: str | None = None
    head_sha: str
    event: str
    status: str
    """queued, in_progress, completed (or waiting, requested, pending)."""
    conclusion: str | None = None
    """success, failure, cancelled, skipped, timed_out, action_required, neutral, … once
    completed."""
    html_url: str = ""
    run_attempt: int = 1
    check_suite_id: int | None = None

    @property
    def completed(self) -> bool:
        return self.status == "completed"


class StepInfo(BaseModel):
    model_config = _CONFIG

    number: int
    name: str
    status: str
    conclusion: str | None = None


class JobInfo(BaseModel):
    """One job of a workflow run, with its steps."""

    model_config = _CONFIG

    id: int
    run_id: int
    name: str
    status: str
    conclusion: str | None = None
    html_url: str = ""
    steps: tuple[StepInfo, ...] = ()


class CheckSuiteInfo(BaseModel):
    """One check suite of a commit: one app's checks (GitHub Actions makes one per run)."""

    model_config = _CONFIG

    id: int
    app: str
    """The app's slug (`github-actions` for workflow runs)."""
    head_sha: str
    status: str
    conclusion: str | None = None
    check_runs: int = 0
    """`latest_check_runs_count`: a suite without check runs is one nothing ran in."""

    @property
    def completed(self) -> bool:
        return self.status == "completed"


class CheckRunInfo(BaseModel):
    """One check run of a commit (a job of a workflow run, or another app's check)."""

    model_config = _CONFIG

    id: int
    name: str
    app: str
    status: str
    conclusion: str | None = None
    html_url: str = ""
    check_suite_id: int | None = None


class Polled(BaseModel, Generic[T]):
    """The answer of a conditional read: the items, or None when nothing changed since
    the `ETag` sent; `etag` is the one to send next time."""

    model_config = ConfigDict(frozen=True)

    etag: str | None = None
    items: tuple[T, ...] | None = None

    @property
    def modified(self) -> bool:
        return self.items is not None


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _optional(value: Any) -> str | None:
    return None if value is None else str(value)


def workflow_info(data: dict[str, Any]) -> WorkflowInfo:
    return WorkflowInfo(
        id=int(data["id"]),
        name=_text(data.get("name")),
        path=_text(data.get("path")),
        state=_text(data.get("state") or "active"),
        html_url=_text(data.get("html_url")),
    )


def workflow_run_info(data: dict[str, Any]) -> WorkflowRunInfo:
    return WorkflowRunInfo(
        id=int(data["id"]),
        name=_text(data.get("name")),
        workflow_id=int(data.get("workflow_id") or 0),
        path=_text(data.get("path")),
        head_branch=_optional(data.get("head_branch")),
        head_sha=_text(data.get("head_sha")),
        event=_text(data.get("event")),
        status=_text(data.get("status")),
        conclusion=_optional(data.get("conclusion")),
        html_url=_text(data.get("html_url")),
        run_attempt=int(data.get("run_attempt") or 1),
        check_suite_id=data.get("check_suite_id"),
    )


def job_info(data: dict[str, Any]) -> JobInfo:
    return JobInfo(
        id=int(data["id"]),
        run_id=int(data.get("run_id") or 0),
        name=_text(data.get("name")),
        status=_text(data.get("status")),
        conclusion=_optional(data.get("conclusion")),
        html_url=_text(data.get("html_url")),
        steps=tuple(
            StepInfo(
                number=int(step.get("number") or 0),
                name=_text(step.get("name")),
                status=_text(step.get("status")),
                conclusion=_optional(step.get("conclusion")),
            )
            for step in data.get("steps") or ()
        ),
    )


def check_suite_info(data: dict[str, Any]) -> CheckSuiteInfo:
    return CheckSuiteInfo(
        id=int(data["id"]),
        app=_text((data.get("app") or {}).get("slug")),
        head_sha=_text(data.get("head_sha")),
        status=_text(data.get("status")),
        conclusion=_optional(data.get("conclusion")),
        check_runs=int(data.get("latest_check_runs_count") or 0),
    )


def check_run_info(data: dict[str, Any]) -> CheckRunInfo:
    return CheckRunInfo(
        id=int(data["id"]),
        name=_text(data.get("name")),
        app=_text((data.get("app") or {}).get("slug")),
        status=_text(data.get("status")),
        conclusion=_optional(data.get("conclusion")),
        html_url=_text(data.get("html_url") or data.get("details_url")),
        check_suite_id=(data.get("check_suite") or {}).get("id"),
    )


def workflow_triggers(text: str) -> frozenset[str]:
    """The events a workflow file's `on:` names (`push`, `pull_request`,
    `workflow_dispatch`, …); empty for a file that is not a workflow YAML can read.

    YAML 1.1 reads a bare `on` key as true, as PyYAML does: both spellings count."""
    import yaml  # only runs that look at workflows need it

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return frozenset()
    if not isinstance(document, dict):
        return frozenset()
    on = document.get("on", document.get(True))
    if isinstance(on, str):
        return frozenset({on})
    if isinstance(on, list):
        return frozenset(str(event) for event in on)
    if isinstance(on, dict):
        return frozenset(str(event) for event in on)
    return frozenset()


_AMELIA_USES = re.compile(r"(?i)docker://\S*amelia\S*|[A-Za-z0-9_.-]+/amelia(?:/[^@\s]*)?@\S+")
"""A `uses:` of the amelia action: `<owner>/amelia@…`, `<owner>/amelia/host@…`, or its
image, `docker://…amelia…`."""


def runs_amelia(text: str) -> bool:
    """Whether a job of the workflow file `text` uses the amelia action (a step's or the
    job's `uses:`): such a workflow is amelia's own, never the repository's CI."""
    import yaml  # only runs that look at workflows need it

    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        return False
    jobs = document.get("jobs") if isinstance(document, dict) else None
    if not isinstance(jobs, dict):
        return False
    for job in jobs.values():
        if not isinstance(job, dict):
            continue
        steps = job.get("steps")
        uses = [job.get("uses")] + (
            [step.get("uses") for step in steps if isinstance(step, dict)]
            if isinstance(steps, list)
            else []
        )
        if any(isinstance(u, str) and _AMELIA_USES.fullmatch(u.strip()) for u in uses):
            return True
    return False
