"""The repository's CI in the implement and fix modes: after each push, run it and wait
(`amelia.ci`), keep the outcome as the round's evidence (`ExecutionState.last_ci`), show
the wait on the progress comment, and say what the run could not do once, as a warning.

A dry run never starts or waits for CI. The `ci` section of the trusted
`.github/amelia.yml` chooses the workflows and the time amelia waits.
"""

from __future__ import annotations

import asyncio
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING

from loguru import logger

from amelia.ci import run_ci
from amelia.ci.config import CiConfig
from amelia.ci.render import review_note, waiting_detail
from amelia.ci.run import ci_trigger, read_ci
from amelia.core.ci import CiReport
from amelia.core.state import ExecutionState
from amelia.git import head_sha
from amelia.github.token_facts import TokenFacts
from amelia.github.workflows import WorkflowRunInfo

if TYPE_CHECKING:
    from amelia.action.modes.base import ModeContext

__all__ = ["STAGE_CI", "RepositoryCi"]

STAGE_CI = "repository CI"
"""The progress comment's checklist stage of the wait."""


@dataclass
class RepositoryCi:
    """The CI of one run's pushes."""

    ctx: ModeContext
    branch: str
    _: KW_ONLY
    latest: CiReport | None = None
    """The last outcome seen (also when the run stops before the state could keep it)."""
    _facts: TokenFacts | None = None
    _notes: list[str] = field(default_factory=list)

    @property
    def config(self) -> CiConfig:
        return self.ctx.repo_config.ci if self.ctx.repo_config is not None else CiConfig()

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the run could not do about CI (each said once)."""
        return tuple(self._notes)

    async def before_rounds(self, state: ExecutionState) -> ExecutionState:
        """`state` with the CI that already failed on the branch's head as `last_ci` (a run
        started to fix it), so the first round gets that failure as evidence."""
        if self.ctx.dry_run or not self.config.enabled:
            return state
        sha = await asyncio.to_thread(head_sha, self.ctx.checkout.git)
        facts = await self._token_facts()
        earlier = await read_ci(
            self.ctx.github, head_sha=sha, redactor=self.ctx.redactor, trigger=ci_trigger(facts)
        )
        if earlier is None or not earlier.failed:
            return state
        self.latest = earlier
        return state.evolve(last_ci=earlier)

    async def _token_facts(self) -> TokenFacts:
        if self._facts is None:
            self._facts = await self.ctx.github.token_facts()
        return self._facts

    async def started_by_pull_request(self) -> bool:
        """Whether the CI waited for starts from GitHub's events rather than a dispatch (a
        personal access token or an App's token): workflows that run only on
        `pull_request` then start once a pull request of the branch is open."""
        if self.ctx.dry_run or not self.config.enabled:
            return False
        return ci_trigger(await self._token_facts()) == "push"

    async def after_push(self, state: ExecutionState, *, head: str) -> ExecutionState:
        """`state` with the CI outcome of `head`, the commit just pushed, as `last_ci` (the
        last one again when nothing new was pushed)."""
        if self.ctx.dry_run or not self.config.enabled:
            return state
        previous = state.last_ci or self.latest
        if previous is not None and previous.head_sha == head and previous.round > 0:
            return state.evolve(last_ci=previous)  # nothing new pushed: the same outcome
        facts = await self._token_facts()
        round_number = previous.round + 1 if previous is not None else 1
        minutes = self.config.timeout_minutes

        async def progress(runs: tuple[WorkflowRunInfo, ...]) -> None:
            await self.ctx.stage(STAGE_CI, "running", detail=waiting_detail(head, runs, minutes))

        report = await run_ci(
            self.ctx.github,
            branch=self.branch,
            head_sha=head,
            config=self.config,
            facts=facts,
            redactor=self.ctx.redactor,
            round_number=round_number,
            progress=progress,
        )
        await self._show(report)
        if report is None:
            return state
        self.latest = report
        return state.evolve(last_ci=report)

    async def _show(self, report: CiReport | None) -> None:
        if report is None:
            await self.ctx.stage(STAGE_CI, "skipped", detail="no workflow runs on pushes")
            return
        if report.note and report.note not in self._notes:
            logger.warning("{}", report.note)
            self._notes.append(report.note)
        if not report.ran:
            await self.ctx.stage(STAGE_CI, "skipped", detail="did not run")
            return
        detail = f"{report.outcome} on {report.head_sha[:12]}"
        await self.ctx.stage(STAGE_CI, "failed" if report.failed else "done", detail=detail)

    @staticmethod
    def may_approve(state: ExecutionState) -> bool:
        """False while the CI on the pushed commit failed or did not finish."""
        return state.last_ci is None or not state.last_ci.blocks_approval

    @staticmethod
    def review_note(state: ExecutionState) -> str:
        return review_note(state.last_ci)
