"""Run the repository's CI on a commit amelia pushed, and wait for its outcome.

Pushes made with the job's token (`GITHUB_TOKEN`) start no workflow, but a
`workflow_dispatch` made with it does: with that token amelia dispatches the CI workflows
that accept one on its branch (the job needs `actions: write`). A push made with a
personal access token or an App's token starts the CI itself: amelia dispatches nothing
and waits for the check suites of the commit. Either way it waits at most the configured
time, then reads each run's outcome. Nothing here fails the run: what cannot be done
becomes the report's `note`.
"""

from __future__ import annotations

import asyncio
import time

from loguru import logger

from amelia.ci.choose import ChosenWorkflows, choose_workflows
from amelia.ci.config import CiConfig
from amelia.ci.outcome import run_outcome
from amelia.ci.waiting import (
    ACTIONS_APP,
    Clock,
    Pauses,
    Sleep,
    WaitProgress,
    latest_by_workflow,
    wait_for_runs,
    wait_for_suites,
)
from amelia.core.ci import CiReport, CiRunOutcome, CiTrigger
from amelia.errors import GitHubAuthError, GitHubError
from amelia.github.port import GitHubPort
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts
from amelia.github.workflows import CheckSuiteInfo, WorkflowInfo, WorkflowRunInfo
from amelia.redaction import Redactor

__all__ = [
    "ADD_DISPATCH_NOTE",
    "OWN_WORKFLOWS_NOTE",
    "ci_trigger",
    "read_ci",
    "read_permission_note",
    "run_ci",
    "write_permission_note",
]

ADD_DISPATCH_NOTE = (
    "The repository's CI did not run on amelia's commits: pushes made with the job's token "
    "start no workflow, and none of its CI workflows ({names}) accepts a dispatch. Add "
    "`workflow_dispatch:` to their `on:` triggers (and `actions: write` to amelia's job "
    "permissions) so amelia can run them."
)


OWN_WORKFLOWS_NOTE = (
    "`ci.workflows` in `.github/amelia.yml` names {names}, which use the amelia action: "
    "amelia never runs them as the repository's CI (that would run amelia again)."
)


def write_permission_note(detail: str) -> str:
    return (
        "amelia could not start the repository's CI on its branch: the job's token needs "
        f"`actions: write` (add it to the workflow's `permissions:`). GitHub said: {detail}"
    )


def read_permission_note(detail: str) -> str:
    return (
        "amelia could not read the repository's workflows: the job's token needs "
        "`actions: write` to start them and `actions: read` to read them (add it to the "
        f"workflow's `permissions:`). GitHub said: {detail}"
    )


def ci_trigger(facts: TokenFacts) -> CiTrigger:
    """`dispatch` with the job's token (its pushes start no workflow), else `push`."""
    return "dispatch" if facts.scopes is None and facts.login == JOB_TOKEN_LOGIN else "push"


def _names(workflows: tuple[WorkflowInfo, ...]) -> str:
    return ", ".join(f"`{w.file_name}`" for w in workflows)


class _Waiter:
    def __init__(
        self,
        github: GitHubPort,
        *,
        branch: str,
        head_sha: str,
        config: CiConfig,
        redactor: Redactor,
        round_number: int,
        progress: WaitProgress | None,
        sleep: Sleep,
        clock: Clock,
    ) -> None:
        self.github = github
        self.branch = branch
        self.head_sha = head_sha
        self.config = config
        self.redactor = redactor
        self.round = round_number
        self.progress = progress
        self.sleep = sleep
        self.clock = clock

    def report(self, trigger: CiTrigger, **fields: object) -> CiReport:
        return CiReport.model_validate(
            {
                "head_sha": self.head_sha,
                "trigger": trigger,
                "round": self.round,
                "timeout_minutes": self.config.timeout_minutes,
                **fields,
            }
        )

    def pauses(self) -> Pauses:
        waited = self.config.timeout_minutes * 60 if self.config.wait else 0.0
        deadline = self.clock() + waited
        return Pauses(self.config.poll_seconds, deadline, clock=self.clock, sleep=self.sleep)

    async def outcomes(
        self, chosen: tuple[WorkflowInfo, ...], latest: dict[int, WorkflowRunInfo]
    ) -> tuple[CiRunOutcome, ...]:
        found = [await run_outcome(self.github, run, self.redactor) for run in latest.values()]
        missing = [
            CiRunOutcome(workflow=w.name or w.file_name, status="missing", url=w.html_url)
            for w in chosen
            if w.id not in latest
        ]
        return tuple([*found, *missing])

    async def dispatched(self, chosen: ChosenWorkflows) -> CiReport:
        if not chosen.dispatchable:
            return self.report("dispatch", note=ADD_DISPATCH_NOTE.format(names=_names(chosen.ci)))
        workflows = chosen.dispatchable
        before = await self.github.list_workflow_runs(self.head_sha, event="workflow_dispatch")
        earlier = frozenset(run.id for run in before.items or ())
        for workflow in workflows:
            try:
                await self.github.dispatch_workflow(workflow.id, self.branch)
            except GitHubAuthError as error:
                return self.report("dispatch", note=write_permission_note(error.message))
        ids = frozenset(w.id for w in workflows)
        latest = await wait_for_runs(
            self.github,
            self.head_sha,
            ids,
            self.pauses(),
            event="workflow_dispatch",
            skip=earlier,
            progress=self.progress,
        )
        return self.report("dispatch", runs=await self.outcomes(workflows, latest))

    async def pushed(self, chosen: ChosenWorkflows) -> CiReport:
        if not chosen.ci:
            return self.report("push")
        if self.progress is not None:
            await self.progress(())
        suites = await wait_for_suites(self.github, self.head_sha, self.pauses())
        if not suites:
            note = f"No check suite started on {self.head_sha[:12]} after amelia's push."
            return self.report("push", note=note)
        polled = await self.github.list_workflow_runs(self.head_sha)
        ids = frozenset(w.id for w in chosen.ci)
        latest: dict[int, WorkflowRunInfo] = {}
        for run in polled.items or ():
            if run.workflow_id in ids and (
                run.workflow_id not in latest or run.id > latest[run.workflow_id].id
            ):
                latest[run.workflow_id] = run
        ran = tuple(w for w in chosen.ci if w.id in latest)
        others = await self.other_apps(suites)
        return self.report("push", runs=(*await self.outcomes(ran, latest), *others))

    async def other_apps(self, suites: tuple[CheckSuiteInfo, ...]) -> tuple[CiRunOutcome, ...]:
        """The check suites of other apps than GitHub Actions that amelia waited for, each
        with its conclusion and the page of its first check run."""
        others = [suite for suite in suites if suite.app != ACTIONS_APP]
        if not others:
            return ()
        checks = await self.github.list_check_runs(self.head_sha)
        found: list[CiRunOutcome] = []
        for suite in others:
            runs = [run for run in checks if run.check_suite_id == suite.id]
            names = ", ".join(dict.fromkeys(run.name for run in runs if run.name))
            found.append(
                CiRunOutcome(
                    workflow=f"{suite.app} ({names})" if names else suite.app,
                    status=suite.status,
                    conclusion=suite.conclusion,
                    url=next((run.html_url for run in runs if run.html_url), ""),
                    app=suite.app,
                )
            )
        return tuple(found)


async def read_ci(
    github: GitHubPort, *, head_sha: str, redactor: Redactor, trigger: CiTrigger
) -> CiReport | None:
    """The outcome of the runs that finished on `head_sha` before this run (one look, no
    dispatch, no wait): a failure found there is the first round's evidence. None when no
    run finished there, or the runs cannot be read."""
    try:
        polled = await github.list_workflow_runs(head_sha)
        latest = latest_by_workflow(polled.items or ())
        done = [run for run in latest.values() if run.completed]
        if not done:
            return None
        runs = tuple([await run_outcome(github, run, redactor) for run in done])
    except GitHubError as error:
        logger.info("no earlier CI outcome of {}: {}", head_sha[:12], error.message)
        return None
    return CiReport(head_sha=head_sha, trigger=trigger, runs=runs, round=0)


async def run_ci(
    github: GitHubPort,
    *,
    branch: str,
    head_sha: str,
    config: CiConfig,
    facts: TokenFacts,
    redactor: Redactor,
    round_number: int = 1,
    progress: WaitProgress | None = None,
    sleep: Sleep = asyncio.sleep,
    clock: Clock = time.monotonic,
) -> CiReport | None:
    """The repository's CI on `head_sha` (pushed to `branch`): started and waited for as
    the token allows. None when there is nothing to run (CI turned off, or no workflow
    runs on pushes or pull requests)."""
    if not config.enabled:
        return None
    trigger = ci_trigger(facts)
    waiter = _Waiter(
        github,
        branch=branch,
        head_sha=head_sha,
        config=config,
        redactor=redactor,
        round_number=round_number,
        progress=progress,
        sleep=sleep,
        clock=clock,
    )
    try:
        chosen = await choose_workflows(github, head_sha, config)
    except GitHubAuthError as error:
        return waiter.report(trigger, note=read_permission_note(error.message))
    except GitHubError as error:
        logger.warning("could not read the repository's workflows: {}", error.message)
        return waiter.report(trigger, note=f"amelia could not read the workflows: {error.message}")
    if chosen.unknown:
        logger.warning("ci.workflows names no workflow of the repository: {}", chosen.unknown)
    if not chosen.ci and not chosen.own and not config.workflows:
        return None
    if chosen.own:
        note = OWN_WORKFLOWS_NOTE.format(names=_names(chosen.own))
        if not chosen.ci:
            return waiter.report(trigger, note=note)
        logger.warning("{}", note)
    try:
        if trigger == "dispatch":
            return await waiter.dispatched(chosen)
        return await waiter.pushed(chosen)
    except GitHubAuthError as error:
        return waiter.report(trigger, note=read_permission_note(error.message))
    except GitHubError as error:
        logger.warning("could not follow the repository's CI: {}", error.message)
        return waiter.report(trigger, note=f"amelia could not follow the CI: {error.message}")
