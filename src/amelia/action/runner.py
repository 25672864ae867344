"""The Action's engine: from a runner's environment (or explicit arguments) to an exit code.

Exit codes: 0 success, refused, ignored, skipped or dry run; otherwise the code
`amelia.errors.exit_code_for` gives: 1 the run failed (an agent, git or GitHub failed for
good), 2 bad configuration or payload (invalid input, missing token, unreadable or
malformed event). Every failure is one `::error::` line, never a traceback, and everything
posted or logged passes through one `Redactor`.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loguru import logger

from amelia.action.modes import Mode, ModeContext, ModeOutcome, load_mode
from amelia.action.workflow_io import WorkflowIO
from amelia.config import AmeliaVariables, RunnerContext, Settings, load_settings
from amelia.errors import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_OK,
    AmeliaError,
    ConfigError,
    EventError,
    GitError,
    GitHubError,
    exit_code_for,
)
from amelia.github.client import GitHubClient
from amelia.github.events import (
    Command,
    Event,
    IssueCommentEvent,
    IssuesEvent,
    RoutingSettings,
    help_reply,
    parse_event,
    route,
)
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.action.workspace import Workspace

OVERRIDE_COMMAND = "AMELIA_COMMAND"
OVERRIDE_ISSUE = "AMELIA_ISSUE_NUMBER"
_OVERRIDE_KINDS = ("plan", "implement", "review", "scan", "help")


@dataclass(frozen=True)
class ActionRequest:
    """What to run. None means: take it from the runner's environment."""

    event_name: str | None = None
    event_path: Path | None = None
    workspace: Path | None = None
    default_workspace: Path | None = None
    """The checkout when neither `workspace` nor GITHUB_WORKSPACE names one (else the
    container's /github/workspace)."""
    dry_run: bool | None = None


def _configure_logging(redactor: Redactor) -> None:
    def redact(record: Any) -> None:
        record["message"] = redactor.redact(record["message"])

    logger.remove()
    logger.configure(patcher=redact)
    # diagnose=False: a traceback must never print variable values (tokens live in some).
    logger.add(
        sys.stderr, level="INFO", format="{level}: {message}", backtrace=False, diagnose=False
    )


def command_override(
    variables: AmeliaVariables,
    event: Event,
    runner: RunnerContext,
    trigger_phrase: str = "/amelia",
) -> Command | None:
    """`AMELIA_COMMAND` / `AMELIA_ISSUE_NUMBER` (e.g. from a matrix job) win over routing."""
    kind = variables.command.strip().lower()
    number_text = variables.issue_number.strip()
    if not kind and not number_text:
        return None
    kind = kind or "plan"
    if kind not in _OVERRIDE_KINDS:
        raise ConfigError(f"{OVERRIDE_COMMAND} must be one of {', '.join(_OVERRIDE_KINDS)}")
    number: int | None = None
    if number_text:
        if not number_text.isdigit() or int(number_text) < 1:
            raise ConfigError(f"{OVERRIDE_ISSUE} must be a positive issue number")
        number = int(number_text)
    elif kind in ("plan", "implement", "review"):
        raise ConfigError(f"{OVERRIDE_COMMAND}={kind} needs {OVERRIDE_ISSUE}")
    who = event.sender.login if event.sender else runner.actor
    reply = help_reply(trigger_phrase) if kind == "help" else ""
    return Command(kind=kind, number=number, requested_by=who, reply=reply)


def _read_event(request: ActionRequest, runner: RunnerContext) -> tuple[str, Event]:
    name = request.event_name or runner.event_name
    path = request.event_path or (Path(runner.event_path) if runner.event_path else None)
    if not name:
        raise ConfigError("no event name: GITHUB_EVENT_NAME is not set")
    if path is None:
        raise ConfigError("no event payload: GITHUB_EVENT_PATH is not set")
    try:
        payload = path.read_bytes()
    except OSError as error:
        raise EventError(f"cannot read the event payload {path}: {error.strerror}") from None
    return name, parse_event(name, payload)


def _is_human_trigger(event: Event) -> bool:
    # Dispatch and schedule need write access to start at all; comments and labels do not.
    return isinstance(event, (IssueCommentEvent, IssuesEvent))


class _Engine:
    def __init__(self, request: ActionRequest, io: WorkflowIO) -> None:
        self.request = request
        self.io = io
        self.redactor = Redactor()
        self.stopped_by: str | None = None
        """The signal (SIGTERM, SIGINT) that cancelled the run, e.g. a cancelled workflow."""

    def _stop_on_signals(self) -> None:
        """Turn the runner's SIGTERM/SIGINT (job cancelled) into a cancellation of the run,
        so it still reports how it ended; a second signal ends the process at once."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def stop(signum: int) -> None:
            if self.stopped_by is not None or task is None:
                os._exit(128 + signum)
            self.stopped_by = signal.Signals(signum).name
            task.cancel()

        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, stop, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                return  # not the main thread, or no signals here: run without the handler

    def _stopped(self) -> str | None:
        """The reason to report when our own signal handler cancelled the run, else None."""
        task = asyncio.current_task()
        if self.stopped_by is None or task is None:
            return None
        task.uncancel()
        return f"the run was stopped by {self.stopped_by} (the job was cancelled)"

    async def run(self) -> int:
        self._stop_on_signals()
        try:
            return await self._run()
        except asyncio.CancelledError:
            reason = self._stopped()
            if reason is None:
                raise
            self.io.error(f"amelia failed: {reason}")
            self.io.write_summary(f"## amelia: failure\n\n**Reason:** {reason}\n")
            self.io.set_outputs({"conclusion": "failure"})
            return EXIT_FAILED
        except AmeliaError as error:
            # Bad input (exit 2), or GitHub or git failed outside a mode (the permission
            # check, a refusal's reply): still one clear line, never a traceback.
            code = exit_code_for(error)
            message = self.redactor.redact(error.message)
            self.io.set_outputs({"conclusion": "failure"})
            if code == EXIT_BAD_INPUT:
                self.io.error(message)
                return code
            self.io.error(f"amelia failed: {message}")
            self.io.write_summary(f"## amelia: failure\n\n**Reason:** {message}\n")
            return code

    async def _run(self) -> int:
        settings = load_settings()
        runner, inputs = settings.runner, settings.inputs
        self.io = WorkflowIO(runner.output, runner.step_summary)
        for secret in inputs.secret_values():
            self.io.mask(secret)
        self.redactor = Redactor(settings.secret_values())
        _configure_logging(self.redactor)

        event_name, event = _read_event(self.request, runner)
        override = command_override(settings.amelia, event, runner, inputs.trigger_phrase)
        command = override or route(
            event,
            RoutingSettings(
                trigger_phrase=inputs.trigger_phrase,
                label_trigger=inputs.label_trigger,
                review_pull_requests=inputs.review_pull_requests,
                review_drafts=inputs.review_drafts,
            ),
        )
        if command.kind == "ignore":
            self.io.notice(f"amelia: nothing to do for {event_name}: {command.reason}")
            self.io.set_outputs({"conclusion": "skipped"})
            return EXIT_OK
        mode = load_mode(command.kind)
        if mode is None:
            self.io.warning(f"amelia: no mode handles `{command.kind}` in this version")
            self.io.set_outputs({"conclusion": "skipped"})
            return EXIT_OK
        return await self._run_mode(mode, command, event, settings)

    def _client(self, settings: Settings, repo: str, dry_run: bool) -> GitHubClient:
        from amelia.action.dry_run import DryRunGitHubClient

        token = settings.github_token
        if not token:
            raise ConfigError(
                "no GitHub token: set the github_token input (INPUT_GITHUB_TOKEN) or GITHUB_TOKEN"
            )
        tuning: dict[str, Any] = {
            "policy": settings.github_retry,
            "timeout": settings.github_timeout,
            "throttle": settings.github_throttle,
        }
        api_url = settings.runner.api_url
        if dry_run:
            return DryRunGitHubClient(
                token=token,
                repo=repo,
                base_url=api_url,
                directory=settings.dry_run_dir,
                **tuning,
            )
        return GitHubClient(token=token, repo=repo, base_url=api_url, **tuning)

    async def _run_mode(
        self,
        mode: Mode,
        command: Command,
        event: Event,
        settings: Settings,
    ) -> int:
        from amelia.action.log_groups import LogGroupSink
        from amelia.action.progress import ProgressTracker
        from amelia.action.workspace import Workspace
        from amelia.core.types import Profile
        from amelia.drivers.runtime import DriverEnvironment
        from amelia.github.auth import may_trigger
        from amelia.github.comments import ProgressComment, render_reply
        from amelia.pipeline import default_make_driver
        from amelia.pipeline.planfile import plan_path_pattern

        runner, inputs = settings.runner, settings.inputs
        repo = runner.repository or (event.repository.full_name if event.repository else None)
        if not repo or "/" not in repo:
            raise ConfigError("no repository: GITHUB_REPOSITORY must be owner/name")
        dry_run = inputs.dry_run if self.request.dry_run is None else self.request.dry_run
        github = self._client(settings, repo, dry_run)
        who = command.requested_by

        if mode.needs_permission and who and _is_human_trigger(event):
            decision = await asyncio.to_thread(may_trigger, github, who, inputs.allowed_users)
            if not decision.allowed:
                if command.number is not None:
                    body = render_reply(decision.reason, self.redactor)
                    await asyncio.to_thread(github.create_comment, command.number, body)
                if not decision.checked:
                    raise GitHubError(f"could not check the permission of @{who} (see the log)")
                self.io.notice(f"amelia: refused: {decision.reason}")
                self.io.set_outputs({"conclusion": "refused"})
                return EXIT_OK

        workspace = Workspace(
            self._checkout(runner),
            token=settings.github_token,
            dry_run=dry_run,
            artifacts_dir=settings.artifacts_dir,
        )
        # The drivers get the model keys and the environment their processes start from
        # here, explicitly; transcripts go where later steps of the job can read them.
        environment = DriverEnvironment(
            inherited=settings.environ,
            credentials=settings.model_credentials(),
            home=settings.action_home,
        )
        profile = Profile(
            driver=inputs.driver,
            model=inputs.model,
            max_turns=inputs.max_turns,
            max_review_iterations=inputs.max_review_iterations,
            timeout_seconds=inputs.timeout_minutes * 60,
            plan_path_pattern=plan_path_pattern(inputs.plan_dir),
        )
        progress = None
        if mode.stages and command.number is not None:
            progress = ProgressTracker(
                ProgressComment(github, command.number),
                self.redactor,
                issue_number=command.number,
                command=f"{inputs.trigger_phrase} {mode.name}",
                stages=mode.stages,
                requested_by=who,
                run_url=runner.run_url,
            )
            await progress.start()
        groups = LogGroupSink(self.io, self.redactor)
        sinks = [groups] + ([progress.sink] if progress else [])
        context = ModeContext(
            command=command,
            event=event,
            inputs=inputs,
            runner=runner,
            repo=repo,
            github=github,
            workspace=workspace,
            io=self.io,
            redactor=self.redactor,
            progress=progress,
            profile=profile,
            make_driver=default_make_driver(profile, environment=environment),
            sinks=list(sinks),
            dry_run=dry_run,
            dry_run_dir=getattr(github, "directory", None),
        )
        try:
            outcome = await self._guarded(mode, context)
        finally:
            # The mode has returned (or crashed): every agent has ended and our last push is
            # done, so the checkout may hold its token again for the job's later steps.
            self._restore_credentials(workspace)
        groups.close()
        return await self._finish(mode, context, outcome)

    def _checkout(self, runner: RunnerContext) -> Path:
        if self.request.workspace is not None:
            return self.request.workspace
        if "workspace" in runner.model_fields_set or self.request.default_workspace is None:
            return Path(runner.workspace)
        return self.request.default_workspace

    def _restore_credentials(self, workspace: Workspace) -> None:
        """Give `.git/config` back the token `prepare()` hid; a failure is only a warning,
        since our own work is done and pushed by now."""
        try:
            workspace.restore_credentials()
        except GitError as error:
            message = self.redactor.redact(error.message)
            self.io.warning(f"amelia: could not restore the checkout's credentials: {message}")

    async def _guarded(self, mode: Mode, context: ModeContext) -> ModeOutcome:
        from amelia.pipeline import StageFailedError

        try:
            if mode.needs_workspace:
                await asyncio.to_thread(context.workspace.prepare)
            return await mode.run(context)
        except StageFailedError as error:
            return ModeOutcome(conclusion="failure", failure_reason=str(error), state=error.state)
        except asyncio.CancelledError:
            reason = self._stopped()
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

    async def _finish(self, mode: Mode, context: ModeContext, outcome: ModeOutcome) -> int:
        from amelia.action.summary import render_summary, total_cost

        cost = total_cost(outcome.state)
        reason = self.redactor.redact(outcome.failure_reason) if outcome.failure_reason else None
        conclusion = outcome.conclusion
        if context.dry_run and conclusion == "success":
            conclusion = "dry_run"
        if context.progress is not None:
            await context.progress.finish(
                "failed" if conclusion == "failure" else "succeeded",
                cost,
                links=outcome.links,
                failure_reason=reason,
            )
            if context.progress.update_error is not None:
                # Nobody would learn how the run ended: fail it where people still look.
                note = self.redactor.redact(
                    f"the progress comment could not be posted: {context.progress.update_error}"
                )
                reason = f"{reason}; {note}" if conclusion == "failure" and reason else note
                conclusion = "failure"
        outputs = {
            "conclusion": conclusion,
            **({"cost_usd": f"{cost:.4f}"} if cost is not None else {}),
            **outcome.outputs,
        }
        self.io.set_outputs(outputs)
        summary = render_summary(
            mode.name, conclusion, outputs, outcome.state, self.redactor, reason
        )
        if context.workspace.unpushed is not None:
            summary += "\n" + context.workspace.unpushed.summary_markdown(self.redactor)
        self.io.write_summary(summary)
        if conclusion == "failure":
            self.io.error(f"amelia {mode.name} failed: {reason or 'unknown error'}")
            return EXIT_FAILED
        return EXIT_OK


def run_action(request: ActionRequest | None = None) -> int:
    """Run one Action step; returns the exit code (see the module docstring)."""
    engine = _Engine(request or ActionRequest(), WorkflowIO())
    return asyncio.run(engine.run())
