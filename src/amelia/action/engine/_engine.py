"""The Action's engine: from a runner's environment (or explicit arguments) to an exit code.

It only routes, prepares what every mode shares and maps the outcome: the settings are read
once (`amelia.config`), the event routed (`routing`), the GitHub client opened and the
person who asked checked (`github_access`), the checkout, profile, drivers and sinks set
up here, each mode prepares what it alone needs (`Mode.prepare`), and the outcome becomes
outputs, summary, the final progress update and the exit code (`report`). Signals cancel
the run so it still reports (`signals`).

`run_action(ports=...)` hands the engine its own GitHub, drivers, clock, origin and streams
(`ActionPorts`), as tests and `amelia replay` do; everything else runs as on a runner.

Exit codes: 0 success, refused, ignored, skipped or dry run; otherwise the code
`amelia.errors.exit_code_for` gives: 1 the run failed (an agent, git or GitHub failed for
good), 2 bad configuration or payload (invalid input, missing token, unreadable or
malformed event). Every failure is one `::error::` line, never a traceback, and everything
posted or logged passes through one `Redactor`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import KW_ONLY, dataclass
from datetime import UTC
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from loguru import logger

from amelia.action.checkout import workflow_path
from amelia.action.engine._github_access import open_client, refusal
from amelia.action.engine._log_setup import configure_logging
from amelia.action.engine._ports import ActionPorts
from amelia.action.engine._report import (
    report_error,
    report_outcome,
    report_stopped,
    report_without_mode,
)
from amelia.action.engine._routing import read_event, route_event
from amelia.action.engine._signals import SignalCancellation
from amelia.action.modes import Mode, ModeContext, ModeExit, ModeOutcome, load_mode
from amelia.action.workflow_io import WorkflowIO
from amelia.config import Settings, load_settings, runner_files
from amelia.errors import EXIT_OK, AmeliaError, ConfigError, RunError
from amelia.github.events import Command, Event
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.action.checkout import Checkout
    from amelia.action.run_settings import RunSettings, RunTarget
    from amelia.drivers.runtime import DriverEnvironment
    from amelia.github.port import GitHubPort
    from amelia.mcp.config import McpConfig
    from amelia.pipeline.sinks import Sink
    from amelia.replay.recorder import Recorder
    from amelia.repo_config import RepoConfig

__all__ = ["ActionExit", "ActionRequest", "run_action", "run_action_to_exit"]


@dataclass(frozen=True)
class ActionRequest:
    """What to run. None means: take it from the runner's environment. What the run reaches
    outside itself (GitHub, drivers, clock, origin, streams) is in `ActionPorts`."""

    _: KW_ONLY
    event_name: str | None = None
    event_path: Path | None = None
    workspace: Path | None = None
    default_workspace: Path | None = None
    """The checkout when neither `workspace` nor GITHUB_WORKSPACE names one (else the
    container's /github/workspace)."""
    dry_run: bool | None = None
    environ: Mapping[str, str] | None = None
    """The runner's variables (`GITHUB_*`, `INPUT_*`, …; None: this process's
    environment)."""


def _credentials(settings: Settings) -> list[str]:
    """The values of the run's credentials: no change amelia pushes may hold one."""
    found = {
        *settings.inputs.secret_values(),
        *settings.model_credentials().values(),
        *settings.secrets.values(),
        settings.github_token or "",
    }
    return sorted(value for value in found if value)


class _Engine:
    def __init__(self, request: ActionRequest, io: WorkflowIO, ports: ActionPorts) -> None:
        self.request = request
        self.ports = ports
        self.io = io
        self.started = ports.clock.now().astimezone(UTC)
        self.redactor = Redactor()
        self.signals = SignalCancellation()

    async def run(self) -> int:
        self.signals.install()
        try:
            return await self._run()
        except asyncio.CancelledError:
            reason = self.signals.reason()
            if reason is None:
                raise
            return report_stopped(self.io, reason)
        except AmeliaError as error:
            return report_error(self.io, self.redactor, error)

    async def _run(self) -> int:
        settings = load_settings(environ=self.request.environ)
        runner, inputs = settings.runner, settings.inputs
        self.io = WorkflowIO(
            output_path=runner.output, summary_path=runner.step_summary, stream=self.ports.stdout
        )
        for secret in inputs.secret_values():
            self.io.mask(secret)
        self.redactor = Redactor(secrets=settings.secret_values())
        configure_logging(self.redactor, stream=self.ports.stderr)

        event_name, event = read_event(
            runner, name=self.request.event_name, path=self.request.event_path
        )
        command = route_event(settings, event)
        if command.kind == "ignore":
            notice = f"amelia: nothing to do for {event_name}: {command.reason}"
            return report_without_mode(self.io, "skipped", notice)
        mode = load_mode(command.kind)
        if mode is None:
            self.io.warning(f"amelia: no mode handles `{command.kind}` in this version")
            self.io.set_outputs({"conclusion": "skipped"})
            return EXIT_OK
        return await self._run_mode(mode, command, event, settings, event_name)

    async def _run_mode(
        self, mode: Mode[Any], command: Command, event: Event, settings: Settings, event_name: str
    ) -> int:
        from amelia.action.run_settings import resolve_run_settings, run_target

        request = self.request
        target = run_target(
            settings,
            event,
            dry_run=request.dry_run,
            workspace=request.workspace,
            default_workspace=request.default_workspace,
        )
        if mode.needs_workspace:
            self._check_workspace(target.checkout, settings)
        github = open_client(
            settings,
            target.repo,
            dry_run=target.dry_run,
            github=self.ports.github,
            stream=self.ports.stdout,
        )
        recorder = self._recorder(settings, event_name, target)
        if recorder is not None:
            github = recorder.github(github)
        if mode.needs_permission:
            inputs = settings.inputs
            refused = await refusal(github, command, event, inputs.allowed_users, self.redactor)
            if refused is not None:
                return report_without_mode(self.io, "refused", f"amelia: refused: {refused}")
        resolved = await resolve_run_settings(
            settings,
            target,
            command,
            event,
            github=github,
            redactor=self.redactor,
            read_repository=mode.needs_workspace,
            day=self.started.date(),
        )
        if resolved.skipped is not None:
            notice = f"amelia: nothing to do: {resolved.skipped}"
            return report_without_mode(self.io, "skipped", notice)

        from amelia.action.checkout import private_git_config
        from amelia.action.engine._agent_runtime import agent_runtime
        from amelia.action.engine._log_groups import LogGroupSink

        # Modes that prepare a checkout run agents in it: they get the credential proxy.
        runtime = agent_runtime(
            settings,
            self.redactor,
            runs_agents=mode.needs_workspace,
            mcp=await self._mcp(
                resolved.repo_config if mode.needs_workspace else None, command, event, github
            ),
            observer=recorder,
        )
        # On a runner amelia's git reads only a global config of its own.
        private = private_git_config() if settings.runner.actions else nullcontext()
        async with runtime as environment:
            groups = LogGroupSink(self.io, self.redactor)
            with private as global_config:
                checkout = self._checkout(settings, github, target, environment, global_config)
                if recorder is not None and mode.needs_workspace:
                    recorder.checkout_started(checkout.git)
                ctx = self._mode_context(
                    command, event, resolved, github, groups, environment, checkout=checkout
                )
                try:
                    if mode.prepare is None:
                        await self._open_progress(mode, ctx)
                    outcome = await self._guarded(mode, ctx)
                finally:
                    # The mode has returned (or crashed): every agent has ended and our last
                    # push is done, so the checkout may hold its token again for later steps.
                    self._restore_credentials(checkout)
            groups.close()
        code = await report_outcome(mode.name, ctx, outcome)
        if recorder is not None:
            from amelia.replay.session import finish_recording

            finish_recording(
                recorder,
                self.io,
                checkout.git if mode.needs_workspace else None,
                exit_code=code,
                conclusion=outcome.conclusion,
                outputs=outcome.outputs,
                on_runner=settings.runner.actions,
                workflow_run=settings.runner.run_id,
                later_path=workflow_path(str(recorder.directory), runner_temp=settings.runner.temp),
            )
        return code

    def _recorder(self, settings: Settings, event_name: str, target: RunTarget) -> Recorder | None:
        """The run's recorder: none when the `record` input is off or GitHub was given."""
        if self.ports.github is not None:
            return None
        from amelia.replay.session import start_recording

        runner = settings.runner
        path = self.request.event_path or (Path(runner.event_path) if runner.event_path else None)
        return start_recording(
            settings,
            event_name=event_name,
            event_path=path,
            repo=target.repo,
            dry_run=target.dry_run,
            redactor=self.redactor,
            started=self.started,
        )

    async def _mcp(
        self, config: RepoConfig | None, command: Command, event: Event, github: GitHubPort
    ) -> McpConfig | None:
        """The MCP servers this run starts: the configuration's, none when the run works on
        a pull request's head kept as data (a fork's, or on `pull_request_target`)."""
        from amelia.action.modes._pull_head import serves_a_data_head

        if config is None or not config.mcp.used():
            return None
        if await serves_a_data_head(github, command, event):
            self.io.notice(
                "amelia: the MCP servers of the configuration are not started: this run "
                "reads a pull request's head as data only, and no agent of it gets an MCP tool"
            )
            return None
        return config.mcp

    def _mode_context(
        self,
        command: Command,
        event: Event,
        settings: RunSettings,
        github: GitHubPort,
        log_groups: Sink,
        environment: DriverEnvironment,
        *,
        checkout: Checkout,
    ) -> ModeContext:
        """Everything the mode gets, in one value: the checkout, the settings, the drivers
        (started from `environment`), the log groups and the progress comment to come."""
        from amelia.action.progress import RunProgress
        from amelia.pipeline import default_make_driver

        drivers = self.ports.drivers or default_make_driver
        progress = RunProgress(clock=self.ports.clock.monotonic)
        return ModeContext(
            command=command,
            event=event,
            settings=settings,
            github=github,
            checkout=checkout,
            io=self.io,
            redactor=self.redactor,
            progress=progress,
            make_driver=drivers(settings.profile, environment=environment),
            sinks=(log_groups, progress.sink),
            environment=environment,
            driver_source=self.ports.drivers,
        )

    def _checkout(
        self,
        settings: Settings,
        github: GitHubPort,
        target: RunTarget,
        environment: DriverEnvironment,
        global_config: Path | None,
    ) -> Checkout:
        """The checkout; on a runner amelia's git in it reads only `global_config`."""
        from amelia.action.checkout import Checkout, GitHome, RunnerFiles, workflow_permission_asker
        from amelia.git import PushAllowance

        runner = settings.runner
        return Checkout(
            target.checkout,
            token=settings.github_token,
            dry_run=target.dry_run,
            artifacts_dir=settings.artifacts_dir,
            on_runner=runner.actions,
            # On a runner, amelia talks to the repository where actions/checkout found it,
            # whatever an agent may write into the checkout's `origin`.
            remote_url=self.ports.origin_url
            or (f"{runner.server_url.rstrip('/')}/{target.repo}" if runner.actions else None),
            secrets=_credentials(settings),
            git_home=GitHome.of(settings.environ),
            runner_files=RunnerFiles.of(settings.environ) if runner.actions else None,
            agent=environment.agent,
            # Asked of GitHub only when a change first touches a workflow file.
            allowance=PushAllowance(ask=workflow_permission_asker(github)),
            global_config=global_config,
            # The bot's commits carry the noreply address of this GitHub (an Enterprise
            # Server's own host), never github.com's.
            server_url=runner.server_url,
            # What amelia saves is named in the summary as later steps of the job see it.
            runner_temp=runner.temp,
            network_retry=settings.git_retry,
        )

    async def _open_progress(self, mode: Mode[Any], ctx: ModeContext) -> None:
        """The progress comment, when the mode has stages and there is an issue to post on."""
        number = ctx.command.number
        if not mode.stages or number is None:
            return
        await ctx.progress.open(
            ctx.github,
            self.redactor,
            number=number,
            command=f"{ctx.inputs.trigger_phrase} {mode.name}",
            stages=mode.stages,
            requested_by=ctx.command.requested_by,
            run_url=ctx.runner.run_url,
        )

    def _check_workspace(self, checkout: Path, settings: Settings) -> None:
        """Before anything is read from or written to GitHub, any setup runs or any branch
        changes: the workspace is a git checkout, and the agent user, when agents run as one,
        can enter it (`ConfigError` otherwise)."""
        from amelia.isolation.agent_user import resolve_agent_user

        path = checkout.resolve()
        fix = (
            "check out the repository first (actions/checkout), or give `amelia run --repo` a clone"
        )
        if path.exists() and not path.is_dir():
            raise ConfigError(f"the workspace {path} is not a directory: {fix}")
        if not path.is_dir():
            raise ConfigError(f"the workspace {path} does not exist: {fix}")
        if not (path / ".git").exists():
            raise ConfigError(f"the workspace {path} is not a git checkout: {fix}")
        agent = resolve_agent_user(settings.amelia.agent_user)
        if agent is not None:
            agent.check_entry(path)

    def _restore_credentials(self, checkout: Checkout) -> None:
        """Give `.git/config` back the token `prepare()` hid; a failure (also a process an
        agent left that would not stop, which keeps the token hidden) is only a warning,
        since our own work is done and pushed by now."""
        try:
            checkout.restore()
        except RunError as error:
            message = self.redactor.redact(error.message)
            self.io.warning(f"amelia: could not restore the checkout's credentials: {message}")

    async def _guarded(self, mode: Mode[Any], ctx: ModeContext) -> ModeOutcome:
        """The mode's preparation and run; every failure becomes a failed outcome."""
        from amelia.pipeline import StageFailedError

        try:
            if mode.needs_workspace:
                await asyncio.to_thread(ctx.checkout.prepare)
            prepared = None
            if mode.prepare is not None:
                prepared = await mode.prepare(ctx)
                await self._open_progress(mode, ctx)
            return await mode.run(ctx, prepared)
        except ModeExit as early:
            return early.outcome
        except StageFailedError as error:
            return ModeOutcome(conclusion="failure", failure_reason=str(error), state=error.state)
        except asyncio.CancelledError:
            reason = self.signals.reason()
            if reason is None:
                raise
            return ModeOutcome(conclusion="failure", failure_reason=reason)
        except AmeliaError as error:
            return ModeOutcome(conclusion="failure", failure_reason=error.message)
        except Exception as error:
            # A bug, not a user error: keep the traceback in the log, still end the run
            # cleanly so the progress comment does not stay at "Working…".
            logger.opt(exception=error).error("amelia {} crashed", mode.name)
            reason = f"internal error ({type(error).__name__}: {error})"
            return ModeOutcome(conclusion="failure", failure_reason=reason)


class ActionExit(NamedTuple):
    """How a step ended: its exit code, and the signal (`SIGINT`, `SIGTERM`) that stopped
    it, if one did: the run still reported, and its exit code says it failed."""

    code: int
    stopped_by: str | None = None


def run_action_to_exit(
    *, request: ActionRequest | None = None, ports: ActionPorts | None = None
) -> ActionExit:
    """`run_action`, also saying whether a signal stopped the run (as `amelia replay`
    must, to tell an interrupted replay from one that ended differently)."""
    request = request or ActionRequest()
    ports = ports or ActionPorts()
    # Bad settings still get their `conclusion` output.
    output, summary = runner_files(environ=request.environ)
    io = WorkflowIO(output_path=output, summary_path=summary, stream=ports.stdout)
    engine = _Engine(request, io, ports)
    code = asyncio.run(engine.run())
    signals = engine.signals
    return ActionExit(code, signals.signal_name if signals.stopped_the_run else None)


def run_action(*, request: ActionRequest | None = None, ports: ActionPorts | None = None) -> int:
    """Run one Action step; returns the exit code (see the module docstring). `ports`
    replaces what the engine reaches outside itself (see `ActionPorts`; None: the real
    ones)."""
    return run_action_to_exit(request=request, ports=ports).code
