"""From the runner's event to the command to run: the payload, the override, the route."""

from __future__ import annotations

from pathlib import Path

from amelia.action.modes import REQUESTABLE_KINDS
from amelia.action.modes._pull_head._fork_reviews import unreviewable_fork
from amelia.config import AmeliaVariables, RunnerContext, Settings
from amelia.errors import ConfigError, EventError
from amelia.github.events import Command, Event, RoutingSettings, help_reply, parse_event, route

__all__ = ["OVERRIDE_COMMAND", "OVERRIDE_ISSUE", "command_override", "read_event", "route_event"]

OVERRIDE_COMMAND = "AMELIA_COMMAND"
OVERRIDE_ISSUE = "AMELIA_ISSUE_NUMBER"
_ABOUT_ONE_NUMBER = ("plan", "implement", "review", "fix")


def read_event(
    runner: RunnerContext, *, name: str | None = None, path: Path | None = None
) -> tuple[str, Event]:
    """The event's name and parsed payload: `name`/`path`, else the runner's."""
    name = name or runner.event_name
    path = path or (Path(runner.event_path) if runner.event_path else None)
    if not name:
        raise ConfigError("no event name: GITHUB_EVENT_NAME is not set")
    if path is None:
        raise ConfigError("no event payload: GITHUB_EVENT_PATH is not set")
    try:
        payload = path.read_bytes()
    except OSError as error:
        raise EventError(f"cannot read the event payload {path}: {error.strerror}") from None
    return name, parse_event(name, payload)


def command_override(
    variables: AmeliaVariables,
    event: Event,
    runner: RunnerContext,
    *,
    trigger_phrase: str = "/amelia",
) -> Command | None:
    """`AMELIA_COMMAND` / `AMELIA_ISSUE_NUMBER` (e.g. from a matrix job) win over routing."""
    kind = variables.command.strip().lower()
    number_text = variables.issue_number.strip()
    if not kind and not number_text:
        return None
    kind = kind or "plan"
    if kind not in REQUESTABLE_KINDS:
        raise ConfigError(f"{OVERRIDE_COMMAND} must be one of {', '.join(REQUESTABLE_KINDS)}")
    number: int | None = None
    if number_text:
        if not number_text.isdigit() or int(number_text) < 1:
            raise ConfigError(f"{OVERRIDE_ISSUE} must be a positive issue number")
        number = int(number_text)
    elif kind in _ABOUT_ONE_NUMBER:
        raise ConfigError(f"{OVERRIDE_COMMAND}={kind} needs {OVERRIDE_ISSUE}")
    who = event.sender.login if event.sender else runner.actor
    reply = help_reply(trigger_phrase) if kind == "help" else ""
    return Command.model_validate(
        {"kind": kind, "number": number, "requested_by": who, "reply": reply}
    )


def route_event(settings: Settings, event: Event) -> Command:
    """The command for `event`: the override when set, else what the event asks for; a
    review of a fork's pull request that has no model key to review with is ignored, and
    the reason says how to review forks."""
    inputs = settings.inputs
    override = command_override(
        settings.amelia, event, settings.runner, trigger_phrase=inputs.trigger_phrase
    )
    command = override or route(
        event,
        RoutingSettings(
            trigger_phrase=inputs.trigger_phrase,
            label_trigger=inputs.label_trigger,
            review_pull_requests=inputs.review_pull_requests,
            review_drafts=inputs.review_drafts,
            review_forks=inputs.review_forks,
        ),
    )
    reason = unreviewable_fork(settings, event, command)
    return Command(kind="ignore", reason=reason) if reason else command
