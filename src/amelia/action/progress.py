"""The run's progress comment: a stage checklist edited in place, then the outcome.

Wraps `ProgressComment` (which finds the comment of an earlier run by its hidden marker
and throttles edits) with the report being built; a failing update is logged and never
stops the run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from loguru import logger

from amelia.core.types import StreamEvent, StreamEventType
from amelia.errors import GitHubError
from amelia.github.comments import Outcome, ProgressComment, ProgressReport, Stage, StageStatus
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.github.port import GitHubPort

AGENT_STAGES = {
    "architect": "architect",
    "developer": "developer",
    "reviewer": "reviewer",
    "tests": "tests",
}
"""The checklist stage each event source's events update."""

__all__ = ["AGENT_STAGES", "ProgressTracker", "RunProgress"]


class ProgressTracker:
    """Builds `ProgressReport`s for one issue or pull and publishes them."""

    def __init__(
        self,
        comment: ProgressComment,
        redactor: Redactor,
        issue_number: int,
        command: str,
        stages: tuple[str, ...],
        requested_by: str | None,
        run_url: str | None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`clock` measures the run's duration (seconds)."""
        self._comment = comment
        self._redactor = redactor
        self._clock = clock
        self._started = clock()
        self.report = ProgressReport(
            issue_number=issue_number,
            command=command,
            requested_by=requested_by,
            run_url=run_url,
            stages=tuple(Stage(name=name) for name in stages),
        )
        self.published: list[str] = []
        """Every body handed to GitHub, in order (for dry runs and logs)."""
        self.update_error: str | None = None
        """Why the latest update could not be posted (None once one goes through)."""

    @property
    def comment_url(self) -> str | None:
        return self._comment.comment.html_url if self._comment.comment else None

    async def start(self) -> None:
        await self._publish(final=True)

    async def stage(self, name: str, status: StageStatus, *, detail: str = "") -> None:
        stages = tuple(
            Stage(name=s.name, status=status, detail=detail) if s.name == name else s
            for s in self.report.stages
        )
        self.report = self.report.model_copy(update={"stages": stages})
        await self._publish(final=False)

    async def finish(
        self,
        outcome: Outcome,
        cost_usd: float | None,
        *,
        links: tuple[tuple[str, str], ...] = (),
        failure_reason: str | None = None,
        notes: tuple[str, ...] = (),
        failure_details: str | None = None,
        sections: tuple[str, ...] = (),
    ) -> None:
        stages = tuple(
            Stage(name=s.name, status="skipped" if outcome == "succeeded" else "failed")
            if s.status == "running"
            else s
            for s in self.report.stages
        )
        self.report = self.report.model_copy(
            update={
                "stages": stages,
                "outcome": outcome,
                "duration_seconds": self._clock() - self._started,
                "cost_usd": cost_usd,
                "links": links,
                "failure_reason": failure_reason,
                "notes": notes,
                "failure_details": failure_details,
                "sections": sections,
            }
        )
        await self._publish(final=True)

    async def sink(self, event: StreamEvent) -> None:
        """Reflect the orchestrator's stage events in the checklist."""
        stage = AGENT_STAGES.get(event.agent)
        if stage is None or all(s.name != stage for s in self.report.stages):
            return
        if event.type == StreamEventType.STAGE_STARTED:
            await self.stage(stage, "running", detail=event.content or "")
        elif event.type == StreamEventType.STAGE_COMPLETED:
            status: StageStatus = "failed" if event.is_error else "done"
            await self.stage(stage, status, detail=event.content or "")
        elif event.type == StreamEventType.WORKFLOW_FAILED:
            await self.stage(stage, "failed", detail=event.content or "")

    async def _publish(self, final: bool) -> None:
        from amelia.github.comments import render_progress

        if self.update_error is not None and not final:
            # Each try is several retried writes; after a failure only the final outcome
            # (always tried) is worth them, not every stage in between.
            return
        body = render_progress(self.report, self._redactor)
        try:
            posted = await self._comment.publish(body, final=final)
        except GitHubError as error:
            logger.warning("progress comment update failed: {}", error.message)
            self.update_error = error.message
            return
        self.update_error = None
        if posted:
            self.published.append(body)


class RunProgress:
    """Where a mode shows its progress: the progress comment once the engine opens it
    (`open`), nowhere before or without one. The mode's context holds this one object for
    the whole run, so opening the comment changes no field of the context. `clock`
    (seconds) paces the comment's edits and measures the run."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._tracker: ProgressTracker | None = None
        self._clock = clock

    @property
    def tracker(self) -> ProgressTracker | None:
        """The progress comment, once opened."""
        return self._tracker

    async def open(
        self,
        github: GitHubPort,
        redactor: Redactor,
        *,
        number: int,
        command: str,
        stages: tuple[str, ...],
        requested_by: str | None,
        run_url: str | None,
    ) -> None:
        """Post the progress comment on issue or pull `number` at once (or find an earlier
        run's again); only the engine opens it, once per run."""
        if self._tracker is not None:
            raise RuntimeError("the progress comment is already open")
        tracker = ProgressTracker(
            ProgressComment(github, number, clock=self._clock),
            redactor,
            issue_number=number,
            command=command,
            stages=stages,
            requested_by=requested_by,
            run_url=run_url,
            clock=self._clock,
        )
        await tracker.start()
        self._tracker = tracker

    async def stage(self, name: str, status: StageStatus, *, detail: str = "") -> None:
        """Show a stage's status on the progress comment, when there is one."""
        if self._tracker is not None:
            await self._tracker.stage(name, status, detail=detail)

    async def sink(self, event: StreamEvent) -> None:
        """The pipeline's stage events, on the progress comment when there is one."""
        if self._tracker is not None:
            await self._tracker.sink(event)
