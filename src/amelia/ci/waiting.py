"""Waiting for workflow runs with few requests: a pause that grows, and conditional reads.

Each look is one conditional request (`If-None-Match` with the last `ETag`): GitHub
answers `304 Not Modified` while nothing changed, which costs no rate limit. The pause
between looks starts at `poll_seconds` and grows by half each time, up to a minute, and
the wait ends at its deadline whatever happens.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field

from amelia.github.port import GitHubReads
from amelia.github.workflows import CheckSuiteInfo, WorkflowRunInfo

__all__ = [
    "ACTIONS_APP",
    "MAX_PAUSE_SECONDS",
    "Clock",
    "Pauses",
    "Sleep",
    "WaitProgress",
    "latest_by_workflow",
    "wait_for_runs",
    "wait_for_suites",
]

ACTIONS_APP = "github-actions"
"""The app of the check suites of workflow runs."""
MAX_PAUSE_SECONDS = 60.0
GROWTH = 1.5
NO_SUITE_LOOKS = 6
"""Looks at a commit without any check suite before concluding that nothing runs on it."""

Sleep = Callable[[float], Awaitable[None]]
Clock = Callable[[], float]
WaitProgress = Callable[[tuple[WorkflowRunInfo, ...]], Awaitable[None]]
"""Told the runs seen whenever they change (for the progress comment)."""


@dataclass
class Pauses:
    """The pauses between looks: `first`, then half as long again each time, up to
    `MAX_PAUSE_SECONDS`, never past the deadline."""

    first: float
    deadline: float
    _: KW_ONLY
    clock: Clock = time.monotonic
    sleep: Sleep = field(default_factory=lambda: asyncio.sleep)
    looks: int = 0
    _next: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        self._next = self.first

    def left(self) -> float:
        return self.deadline - self.clock()

    async def pause(self) -> bool:
        """Sleep until the next look; False (without sleeping) once the deadline passed."""
        left = self.left()
        if left <= 0:
            return False
        await self.sleep(min(self._next, left))
        self._next = min(self._next * GROWTH, MAX_PAUSE_SECONDS)
        return True


def latest_by_workflow(
    runs: tuple[WorkflowRunInfo, ...], *, skip: frozenset[int] = frozenset()
) -> dict[int, WorkflowRunInfo]:
    """The newest run of each workflow, leaving out the runs in `skip`."""
    latest: dict[int, WorkflowRunInfo] = {}
    for run in runs:
        if run.id in skip:
            continue
        if run.workflow_id not in latest or run.id > latest[run.workflow_id].id:
            latest[run.workflow_id] = run
    return latest


async def wait_for_runs(
    github: GitHubReads,
    head_sha: str,
    workflow_ids: frozenset[int],
    pauses: Pauses,
    *,
    event: str | None = None,
    skip: frozenset[int] = frozenset(),
    progress: WaitProgress | None = None,
) -> dict[int, WorkflowRunInfo]:
    """The newest run of each of `workflow_ids` on `head_sha` (runs in `skip` were there
    before), once every one has finished or the deadline passed."""
    etag: str | None = None
    latest: dict[int, WorkflowRunInfo] = {}
    while True:
        pauses.looks += 1
        polled = await github.list_workflow_runs(head_sha, event=event, etag=etag)
        etag = polled.etag or etag
        if polled.items is not None:
            found = latest_by_workflow(polled.items, skip=skip)
            latest = {wid: run for wid, run in found.items() if wid in workflow_ids}
            if progress is not None:
                await progress(tuple(latest.values()))
        done = set(latest) >= workflow_ids and all(run.completed for run in latest.values())
        if done or not await pauses.pause():
            return latest


async def wait_for_suites(
    github: GitHubReads, head_sha: str, pauses: Pauses
) -> tuple[CheckSuiteInfo, ...]:
    """The check suites of `head_sha` in which something runs, once all have finished,
    the deadline passed, or none appeared after `NO_SUITE_LOOKS` looks."""
    etag: str | None = None
    suites: tuple[CheckSuiteInfo, ...] = ()
    empty_looks = 0
    while True:
        pauses.looks += 1
        polled = await github.list_check_suites(head_sha, etag=etag)
        etag = polled.etag or etag
        if polled.items is not None:
            # Other apps may leave a suite queued forever with nothing in it.
            suites = tuple(
                suite for suite in polled.items if suite.check_runs > 0 or suite.app == ACTIONS_APP
            )
        empty_looks = 0 if suites else empty_looks + 1
        if suites and all(suite.completed for suite in suites):
            return suites
        if empty_looks >= NO_SUITE_LOOKS or not await pauses.pause():
            return suites
