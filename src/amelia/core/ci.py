"""The repository's own CI on a pushed commit, as a run knows it: each workflow run's
outcome with its link, and for a failed one the job, step and last lines of its log.

amelia observes this (it is no agent's claim): the developer's next round gets a failure
to fix, the reviewer gets the outcome as a fact, and a change whose CI failed or did not
finish is never approved.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["CiFailure", "CiReport", "CiRunOutcome", "CiTrigger"]

CiTrigger = Literal["dispatch", "push"]
"""How the runs started: dispatched by amelia (the job's token) or by its push (a
personal access token or an App's token)."""


class CiFailure(BaseModel):
    """Where a run failed: its job and step, and the last lines of the job's log
    (redacted, capped)."""

    model_config = ConfigDict(frozen=True)

    job: str
    step: str | None = None
    job_url: str = ""
    log_tail: str = ""


class CiRunOutcome(BaseModel):
    """One workflow run on the pushed commit (or another app's check suite)."""

    model_config = ConfigDict(frozen=True)

    workflow: str
    """The workflow's name (or its file when it has none)."""
    status: str
    """queued, in_progress, completed, … (`missing`: it never started)."""
    conclusion: str | None = None
    url: str = ""
    failures: tuple[CiFailure, ...] = ()
    app: str | None = None
    """The app of a check suite of another app than GitHub Actions (its slug), which
    amelia waited for with the workflow runs; None for a workflow run."""

    @property
    def finished(self) -> bool:
        return self.status == "completed"

    @property
    def passed(self) -> bool:
        return self.finished and self.conclusion in ("success", "neutral", "skipped")

    @property
    def label(self) -> str:
        """`success`, `failure`, … once finished; else `still running` or `never started`."""
        if self.finished:
            return self.conclusion or "completed"
        return "never started" if self.status == "missing" else "still running"


class CiReport(BaseModel):
    """The repository's CI on commit `head_sha` after a developer round."""

    model_config = ConfigDict(frozen=True)

    head_sha: str
    trigger: CiTrigger
    runs: tuple[CiRunOutcome, ...] = ()
    round: int = 1
    timeout_minutes: float | None = None
    note: str | None = None
    """Why CI did not run or was not waited for (a missing permission, no workflow that
    accepts a dispatch), for the summary and the pull request."""

    @property
    def ran(self) -> bool:
        return bool(self.runs)

    @property
    def finished(self) -> bool:
        return all(run.finished for run in self.runs)

    @property
    def failed(self) -> bool:
        return any(run.finished and not run.passed for run in self.runs)

    @property
    def passed(self) -> bool:
        """Every run finished and passed (and at least one ran)."""
        return self.ran and all(run.passed for run in self.runs)

    @property
    def blocks_approval(self) -> bool:
        """CI ran on this commit and failed or did not finish."""
        return self.ran and not self.passed

    @property
    def outcome(self) -> str:
        """`passed`, `failed`, `still running` or `did not run`."""
        if not self.ran:
            return "did not run"
        if self.failed:
            return "failed"
        return "passed" if self.passed else "still running"
