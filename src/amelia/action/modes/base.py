"""What every Action mode receives and returns.

A mode handles one routed command (plan, help, …). The engine (`amelia.action.engine`) has
already loaded the settings, parsed and routed the event, checked who asked, prepared the
checkout, run the mode's own `prepare` (if it has one) and created the progress comment
when the mode wants one; the mode does its work through the context and returns a
`ModeOutcome`, or ends early by raising `ModeExit(outcome)` from wherever it finds there
is no more to do (pydantic-ai's `SkipModelRequest` is the model). The engine turns the
outcome into outputs, the job summary, the final progress update and the exit code, so a
mode never prints workflow commands itself, and never creates or replaces the progress
comment.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

from amelia.action.workflow_io import WorkflowIO
from amelia.config import ActionInputs, RunnerContext
from amelia.errors import AmeliaError
from amelia.github.events import Command, Event
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.action.checkout import Checkout
    from amelia.action.progress import RunProgress
    from amelia.action.run_settings import RunSettings, Toolchain
    from amelia.core.state import ExecutionState
    from amelia.core.types import Profile
    from amelia.drivers.runtime import DriverEnvironment
    from amelia.git import Git
    from amelia.github.comments import StageStatus
    from amelia.github.port import GitHubPort
    from amelia.pipeline import MakeDriver, RunContext
    from amelia.pipeline.drivers import DriverSource
    from amelia.pipeline.project_tests import TestCommand
    from amelia.pipeline.sinks import Sink
    from amelia.repo_config import RepoConfig

__all__ = [
    "Conclusion",
    "Mode",
    "ModeContext",
    "ModeExit",
    "ModeOutcome",
    "ModePrepare",
    "ModeRun",
    "Prepared",
]


Conclusion = Literal["success", "failure", "no_changes", "refused", "skipped", "dry_run"]
"""`no_changes`: the agents ran (and cost) but the developer changed nothing, so nothing
was opened or approved; reported like a failure (exit 1), under its own name."""


@dataclass(frozen=True)
class ModeOutcome:
    """What a mode achieved. `outputs` become step outputs (plan_path, branch, pr_number,
    verdict, issues …); `links` are shown with the final progress update."""

    _: KW_ONLY
    conclusion: Conclusion = "success"
    outputs: dict[str, str] = field(default_factory=dict)
    links: tuple[tuple[str, str], ...] = ()
    failure_reason: str | None = None
    failure_details: str | None = None
    """Output that explains the failure (e.g. a setup's last lines), shown collapsed."""
    state: ExecutionState | None = None
    """The pipeline's last state, for costs and the per-agent job summary."""
    notice: str | None = None
    """One line for the log, printed as a `::notice::` (e.g. what a scan found)."""
    warnings: tuple[str, ...] = ()
    """What whoever configured the run should know or change: `::warning::` lines, and at
    the top of the job summary."""
    summary: str = ""
    """Markdown the job summary shows before the outputs (e.g. what a scan handed out)."""


class ModeExit(AmeliaError):
    """Ends a mode here with `outcome`: raised by its preparation or its run (or a helper of
    either) when the command can go no further (nothing to do yet, told in one plain reply;
    a setup that failed). The engine reports `outcome` as if the mode had returned it.

    Not an error of its own: the outcome says how the run ended, and the engine catches
    it before any error, so a mode's `except AmeliaError` must let it pass."""

    def __init__(self, outcome: ModeOutcome) -> None:
        super().__init__(outcome.failure_reason or f"the mode ended early: {outcome.conclusion}")
        self.outcome = outcome


@dataclass(frozen=True)
class ModeContext:
    """Everything a mode may use, built once by the engine. GitHub writes go through
    `github` (a recorder in a dry run), amelia's git through `checkout.git` (and
    `checkout.remote()` for fetches), commits and pushes through `checkout.publisher`,
    progress through `stage` (the progress comment once the engine opened it), agents
    through `run_context`."""

    command: Command
    event: Event
    settings: RunSettings
    """Every setting of the run, each decided once (`amelia.action.run_settings`)."""
    github: GitHubPort
    checkout: Checkout
    io: WorkflowIO
    redactor: Redactor
    progress: RunProgress
    """The progress comment on `command.number`, once the engine opened it (for a mode
    with stages); its `sink` is in `sinks`."""
    make_driver: MakeDriver
    _: KW_ONLY
    sinks: tuple[Sink, ...] = ()
    environment: DriverEnvironment | None = None
    """What `make_driver`'s drivers start from; the setup makes drivers anew from it with
    what it added to `PATH` (`amelia.action.modes._develop._toolchain.prepare_toolchain`)."""
    driver_source: DriverSource | None = None
    """How `make_driver` was made, to make drivers anew for a changed `environment` (None:
    the registry's, `amelia.pipeline.default_make_driver`)."""

    @property
    def inputs(self) -> ActionInputs:
        return self.settings.inputs

    @property
    def runner(self) -> RunnerContext:
        """The GitHub runner's context (server, run, workspace)."""
        return self.settings.runner

    @property
    def repo(self) -> str:
        """owner/name of the repository."""
        return self.settings.target.repo

    @property
    def profile(self) -> Profile:
        return self.settings.profile

    @property
    def toolchain(self) -> Toolchain:
        return self.settings.toolchain

    @property
    def repo_config(self) -> RepoConfig:
        return self.settings.repo_config

    @property
    def dry_run(self) -> bool:
        return self.settings.target.dry_run

    async def stage(self, name: str, status: StageStatus, *, detail: str = "") -> None:
        """Show a stage's status on the progress comment, when there is one."""
        await self.progress.stage(name, status, detail=detail)

    def blob_url(self, sha: str, path: str) -> str:
        return f"{self.runner.server_url.rstrip('/')}/{self.repo}/blob/{sha}/{path}"

    def tree_url(self, branch: str) -> str:
        return f"{self.runner.server_url.rstrip('/')}/{self.repo}/tree/{branch}"

    def run_context(
        self,
        *,
        where: tuple[Path, Git] | None = None,
        make_driver: MakeDriver | None = None,
        profile: Profile | None = None,
        test_command: TestCommand | None = None,
        preexisting: bool = True,
    ) -> RunContext:
        """How the pipeline runs this mode's agents: in the checkout (or in `where`, a
        directory and amelia's git there), each agent run surrounded by the checkout's
        agent sessions, with this context's drivers, profile and sinks unless given.
        `preexisting`: the files earlier steps left in the checkout are not part of the
        change the agents made."""
        from amelia.pipeline import RunContext

        directory, git = where if where is not None else (self.checkout.path, self.checkout.git)
        sessions = self.checkout.sessions
        return RunContext(
            repo_dir=directory,
            git=git,
            make_driver=make_driver if make_driver is not None else self.make_driver,
            profile=profile if profile is not None else self.profile,
            sinks=self.sinks,
            agent_session=sessions.around,
            preexisting=sessions.preexisting_paths if preexisting else None,
            test_command=test_command,
        )


Prepared = TypeVar("Prepared")
"""What a mode's preparation found, handed to its run: a frozen value, or None."""

ModeRun = Callable[[ModeContext, Prepared], Awaitable[ModeOutcome]]
"""A mode's work: from the context and what its preparation found to the outcome."""

ModePrepare = Callable[[ModeContext], Awaitable[Prepared]]
"""Checks what a command needs before its progress comment exists and returns what it
found (a frozen value the run takes); a command that ends there (e.g. nothing to do yet,
told in one plain reply) raises `ModeExit` instead."""


@dataclass(frozen=True)
class Mode(Generic[Prepared]):
    """A mode's declaration: its `run`, and what the engine prepares before calling it.

    `stages` are the checklist of the progress comment (empty: no progress comment);
    `needs_permission`: the person who asked must pass `may_trigger`;
    `needs_workspace`: the checkout is prepared (safe.directory, bot identity, checkout
    credentials removed) before `run`;
    `prepare`: the mode's own preparation (see `ModePrepare`), whose value `run` gets (None
    without one). Without one the progress comment is created first, so even a failing
    preparation of the checkout is reported there; with one it is created once `prepare`
    has returned.
    """

    name: str
    run: ModeRun[Prepared]
    _: KW_ONLY
    stages: tuple[str, ...] = ()
    needs_permission: bool = True
    needs_workspace: bool = True
    prepare: ModePrepare[Prepared] | None = None
