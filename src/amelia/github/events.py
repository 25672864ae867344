"""GitHub event payloads (only the fields we use) and the routing from an event to a command.

`parse_event(name, payload)` validates the payload GitHub wrote to `GITHUB_EVENT_PATH` and
raises `EventError` with a one-line message when it is malformed. `route(event, settings)`
decides what to do; it never raises and never touches the network.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, field_validator

from amelia.errors import EventError
from amelia.github.markers import COMMANDS, is_bot_text

__all__ = [
    "FORKS_OFF_REASON",
    "Actor",
    "Command",
    "CommandKind",
    "CommentPayload",
    "DispatchInputs",
    "Event",
    "EventBase",
    "GitRefPayload",
    "Id",
    "IssueCommentEvent",
    "IssuePayload",
    "IssuesEvent",
    "Label",
    "Number",
    "OtherEvent",
    "PullRequestEvent",
    "PullRequestPayload",
    "PullRequestReviewCommentEvent",
    "RepositoryRef",
    "ReviewCommentPayload",
    "RoutingSettings",
    "ScheduleEvent",
    "WorkflowDispatchEvent",
    "help_reply",
    "parse_event",
    "route",
]


Number = Annotated[StrictInt, Field(ge=1, le=2**31 - 1)]
"""An issue's or pull request's number as GitHub sends it: a JSON integer from 1 up
(GitHub numbers each repository's issues and pull requests together from 1)."""
Id = Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]
"""A comment's id: a positive 64-bit JSON integer."""


class _Payload(BaseModel):
    # GitHub sends far more than we read; unknown fields are ignored, not rejected. A run
    # reads one kind of event: each model builds its validator when first used, not when
    # amelia starts.
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class Actor(_Payload):
    login: str
    type: str = "User"

    @property
    def is_bot(self) -> bool:
        return self.type == "Bot" or self.login.lower().endswith("[bot]")


class Label(_Payload):
    name: str


class RepositoryRef(_Payload):
    full_name: str
    default_branch: str | None = None


class IssuePayload(_Payload):
    number: Number
    title: str = ""
    body: str | None = None
    user: Actor | None = None
    labels: tuple[Label, ...] = ()
    state: str = "open"
    pull_request: dict[str, Any] | None = None

    @property
    def is_pull_request(self) -> bool:
        return self.pull_request is not None


class CommentPayload(_Payload):
    id: Id
    body: str | None = None
    user: Actor


class ReviewCommentPayload(_Payload):
    """A review comment: on a line of a pull's diff, or a reply in such a thread."""

    id: Id
    body: str | None = None
    user: Actor
    path: str = ""
    line: int | None = None
    original_line: int | None = None
    diff_hunk: str = ""
    commit_id: str = ""
    in_reply_to_id: Id | None = None
    """Set on a reply: the comment that starts the thread."""


class GitRefPayload(_Payload):
    ref: str
    sha: str = ""
    repo: RepositoryRef | None = None
    """The repository the ref lives in; GitHub sends null for a fork deleted since."""


class PullRequestPayload(_Payload):
    number: Number
    title: str = ""
    body: str | None = None
    draft: bool = False
    user: Actor | None = None
    head: GitRefPayload
    base: GitRefPayload

    def from_fork(self, *, repository: RepositoryRef | None = None) -> bool:
        """True when the head lives in another repository than the base (a fork), or in
        one GitHub no longer names (a deleted fork). `repository` is the event's, for a
        payload whose base names none."""
        base = self.base.repo or repository
        if self.head.repo is None or base is None:
            return self.head.repo is None
        return self.head.repo.full_name.lower() != base.full_name.lower()


class EventBase(_Payload):
    action: str | None = None
    sender: Actor | None = None
    repository: RepositoryRef | None = None


class IssueCommentEvent(EventBase):
    name: Literal["issue_comment"] = "issue_comment"
    issue: IssuePayload
    comment: CommentPayload


class IssuesEvent(EventBase):
    name: Literal["issues"] = "issues"
    issue: IssuePayload
    label: Label | None = None


class PullRequestReviewCommentEvent(EventBase):
    name: Literal["pull_request_review_comment"] = "pull_request_review_comment"
    comment: ReviewCommentPayload
    pull_request: PullRequestPayload


class PullRequestEvent(EventBase):
    """`pull_request`, or `pull_request_target`: the same payload, but its run has the
    repository's secrets and a write token, and its checkout is the base, never the head."""

    name: Literal["pull_request", "pull_request_target"] = "pull_request"
    number: Number
    pull_request: PullRequestPayload

    @property
    def is_target(self) -> bool:
        """True for `pull_request_target`: the head must be handled as data only."""
        return self.name == "pull_request_target"

    @property
    def from_fork(self) -> bool:
        return self.pull_request.from_fork(repository=self.repository)


class DispatchInputs(_Payload):
    issue_number: int | None = Field(default=None, ge=1, le=2**31 - 1)
    command: Literal["plan", "implement", "review", "scan", "help"] | None = None

    @field_validator("issue_number", "command", mode="before")
    @classmethod
    def _blank_is_none(cls, value: Any) -> Any:
        # Dispatch inputs arrive as strings; an unfilled optional input is "".
        if isinstance(value, str):
            value = value.strip()
            return value.lower() if value and not value.isdigit() else (value or None)
        return value


class WorkflowDispatchEvent(EventBase):
    name: Literal["workflow_dispatch"] = "workflow_dispatch"
    inputs: DispatchInputs = Field(default_factory=DispatchInputs)

    @field_validator("inputs", mode="before")
    @classmethod
    def _null_inputs(cls, value: Any) -> Any:
        return {} if value is None else value


class ScheduleEvent(EventBase):
    name: Literal["schedule"] = "schedule"
    schedule: str | None = None


class OtherEvent(EventBase):
    """Any event we do not act on; kept so routing can say why it ignores it."""

    name: str


Event = (
    IssueCommentEvent
    | IssuesEvent
    | PullRequestEvent
    | PullRequestReviewCommentEvent
    | WorkflowDispatchEvent
    | ScheduleEvent
    | OtherEvent
)

_MODELS: dict[str, type[EventBase]] = {
    "issue_comment": IssueCommentEvent,
    "issues": IssuesEvent,
    "pull_request": PullRequestEvent,
    "pull_request_target": PullRequestEvent,
    "pull_request_review_comment": PullRequestReviewCommentEvent,
    "workflow_dispatch": WorkflowDispatchEvent,
    "schedule": ScheduleEvent,
}


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "payload"
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"field '{where}': {first['msg']}{more}"


def parse_event(event_name: str, payload: bytes | str) -> Event:
    """Validate a webhook payload; `EventError` says what is wrong in one line."""
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError) as exc:
        raise EventError(f"{event_name} event payload is not valid JSON: {exc}") from None
    except RecursionError:
        # json's decoder recurses once per nesting level; no webhook nests this deep.
        raise EventError(f"{event_name} event payload is nested too deeply") from None
    if not isinstance(data, dict):
        raise EventError(f"{event_name} event payload must be a JSON object")
    model = _MODELS.get(event_name)
    try:
        if model is None:
            return OtherEvent.model_validate({**data, "name": event_name})
        event = model.model_validate({**data, "name": event_name})
    except ValidationError as exc:
        raise EventError(f"{event_name} event payload is invalid: {_describe(exc)}") from None
    return cast(Event, event)


class RoutingSettings(BaseModel):
    """The parts of the action's configuration that decide whether an event starts a run."""

    model_config = ConfigDict(frozen=True)

    trigger_phrase: str = "/amelia"
    label_trigger: str | None = "amelia"
    review_pull_requests: bool = True
    review_drafts: bool = False
    review_forks: bool = False


CommandKind = Literal[
    "plan", "implement", "review", "ask", "fix", "help", "scan", "ignore", "unknown-command"
]


class Command(BaseModel):
    """What a run should do. `ignore` carries a `reason`; `help`/`unknown-command` a `reply`."""

    model_config = ConfigDict(frozen=True)

    kind: CommandKind
    number: int | None = None
    """The issue (plan, implement, help) or pull request (review) to work on."""
    requested_by: str | None = None
    comment_id: int | None = None
    reply_to: int | None = None
    """Asked in a review thread: the review comment that starts it (answers go there)."""
    instructions: str = ""
    """Text after the command word, e.g. `/amelia plan keep it small` → "keep it small"."""
    reason: str = ""
    reply: str = ""


def help_reply(trigger_phrase: str) -> str:
    """The markdown list of commands; also the reply to a command we do not know."""
    lines = [f"- `{trigger_phrase} {name}`: {what}" for name, what in COMMANDS.items()]
    return "Commands I understand:\n\n" + "\n".join(lines)


def _ignore(reason: str) -> Command:
    return Command(kind="ignore", reason=reason)


def _command_words(body: str | None, settings: RoutingSettings) -> list[str] | Command:
    """A new comment's words (trigger, command name, notes), or why it is no command."""
    text = (body or "").strip()
    if is_bot_text(text):
        return _ignore("comment was written by amelia")
    words = text.split(maxsplit=2)
    if not words or words[0].lower() != settings.trigger_phrase.lower():
        return _ignore("comment is not a command")
    if _indented_code(body or ""):
        return _ignore("comment shows the command in a code block, it does not give it")
    return words


def _indented_code(body: str) -> bool:
    """True when the comment's first line is indented by a tab or four spaces: Markdown
    shows it as a code block, someone quoting the command rather than giving it. (A quoted
    reply, `> /amelia …`, or a fenced block starts with another word already.)"""
    first = next((line for line in body.splitlines() if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    return len(indent.expandtabs(4)) >= 4


def _route_comment(event: IssueCommentEvent, settings: RoutingSettings) -> Command:
    if event.action != "created":
        return _ignore(f"comment was {event.action or 'changed'}, only new comments are commands")
    words = _command_words(event.comment.body, settings)
    if isinstance(words, Command):
        return words
    name = words[1].lower() if len(words) > 1 else "help"
    base = {
        "number": event.issue.number,
        "requested_by": event.comment.user.login,
        "comment_id": event.comment.id,
        "instructions": words[2].strip() if len(words) > 2 else "",
    }
    on_pull = event.issue.is_pull_request
    if name == "help":
        return Command(kind="help", reply=help_reply(settings.trigger_phrase), **base)
    if name == "plan" and not on_pull:
        return Command(kind="plan", **base)
    if name == "implement":
        # On a pull request: the mode finds the issue from the plan branch it is on.
        return Command(kind="implement", **base)
    if name == "review" and on_pull:
        return Command(kind="review", **base)
    if name == "fix":
        if not on_pull:
            reply = f"`{settings.trigger_phrase} fix` works on pull requests.\n\n"
            return Command(
                kind="unknown-command", reply=reply + help_reply(settings.trigger_phrase), **base
            )
        return Command(kind="fix", **base)
    if name == "ask":
        if not base["instructions"]:
            reply = f"`{settings.trigger_phrase} ask` needs a question after it.\n\n"
            return Command(
                kind="unknown-command", reply=reply + help_reply(settings.trigger_phrase), **base
            )
        return Command(kind="ask", **base)
    if name in ("plan", "implement", "review"):
        place = "pull requests" if name == "review" else "issues"
        reply = f"`{settings.trigger_phrase} {name}` works on {place}.\n\n"
        return Command(
            kind="unknown-command", reply=reply + help_reply(settings.trigger_phrase), **base
        )
    # The echoed word stays inside one code span: a backtick in it could end the span early
    # and turn the rest into live markdown (mentions, links) under the bot's name.
    shown = words[1][:40].replace("`", "'")
    reply = f"I do not know `{settings.trigger_phrase} {shown}`.\n\n"
    return Command(
        kind="unknown-command", reply=reply + help_reply(settings.trigger_phrase), **base
    )


FORKS_OFF_REASON = (
    "pull_request_target runs hold the repository's secrets and write token, so amelia "
    "reviews them only with review_forks: true (see docs/examples/amelia-review-forks.yml)"
)


def _route_review_comment(
    event: PullRequestReviewCommentEvent, settings: RoutingSettings
) -> Command:
    """A review comment that starts with the trigger phrase: `fix` fixes its thread,
    `help` and `review` work as on the pull request, anything else is a question answered
    in the thread."""
    if event.action != "created":
        return _ignore(f"review comment was {event.action or 'changed'}, only new ones are")
    comment = event.comment
    words = _command_words(comment.body, settings)
    if isinstance(words, Command):
        return words
    body = (comment.body or "").strip()
    name = words[1].lower() if len(words) > 1 else "help"
    base = {
        "number": event.pull_request.number,
        "requested_by": comment.user.login,
        "comment_id": comment.id,
        "reply_to": comment.in_reply_to_id or comment.id,
    }
    notes = words[2].strip() if len(words) > 2 else ""
    if name == "help":
        return Command(kind="help", reply=help_reply(settings.trigger_phrase), **base)
    if name in ("fix", "review"):
        return Command(kind=name, instructions=notes, **base)
    question = notes if name == "ask" else body[len(words[0]) :].strip()
    if not question:
        return Command(kind="help", reply=help_reply(settings.trigger_phrase), **base)
    return Command(kind="ask", instructions=question, **base)


def _route_pull(event: PullRequestEvent, settings: RoutingSettings) -> Command:
    if event.is_target and not settings.review_forks:
        return _ignore(FORKS_OFF_REASON)
    if not settings.review_pull_requests:
        return _ignore("automatic pull request reviews are turned off")
    if event.action not in ("opened", "synchronize", "reopened", "ready_for_review"):
        return _ignore(f"{event.name} {event.action} needs no review")
    if event.pull_request.draft and not settings.review_drafts:
        return _ignore("pull request is a draft")
    login = event.sender.login if event.sender else None
    return Command(kind="review", number=event.pull_request.number, requested_by=login)


def _route_dispatch(event: WorkflowDispatchEvent, settings: RoutingSettings) -> Command:
    login = event.sender.login if event.sender else None
    inputs = event.inputs
    command = inputs.command or ("plan" if inputs.issue_number else "scan")
    if command == "scan":
        return Command(kind="scan", requested_by=login)
    if command == "help":
        return Command(kind="help", reply=help_reply(settings.trigger_phrase), requested_by=login)
    if inputs.issue_number is None:
        return _ignore(f"workflow_dispatch {command} needs the issue_number input")
    return Command(kind=command, number=inputs.issue_number, requested_by=login)


def route(event: Event, settings: RoutingSettings) -> Command:
    """Decide what `event` asks for. Bots (including amelia itself) never trigger a run;
    only a pull request's automatic review may be for a bot, when the repository's
    configuration lists it (checked by the Action once the configuration is read)."""
    if isinstance(event, ScheduleEvent):
        return Command(kind="scan")
    if isinstance(event, WorkflowDispatchEvent):
        return _route_dispatch(event, settings)
    # A pull request by a bot may be reviewed: the repository's configuration decides, once
    # it is read (`review.allowed_bots`); no bot ever starts anything else.
    if event.sender is not None and event.sender.is_bot and not isinstance(event, PullRequestEvent):
        return _ignore(f"sender {event.sender.login} is a bot")
    if isinstance(event, IssueCommentEvent):
        if event.comment.user.is_bot:
            return _ignore(f"comment author {event.comment.user.login} is a bot")
        return _route_comment(event, settings)
    if isinstance(event, PullRequestReviewCommentEvent):
        if event.comment.user.is_bot:
            return _ignore(f"comment author {event.comment.user.login} is a bot")
        return _route_review_comment(event, settings)
    if isinstance(event, IssuesEvent):
        label = event.label.name if event.label else ""
        trigger = settings.label_trigger
        if event.action == "labeled" and trigger and label.lower() == trigger.lower():
            login = event.sender.login if event.sender else None
            return Command(kind="plan", number=event.issue.number, requested_by=login)
        return _ignore("nothing to do")
    if isinstance(event, PullRequestEvent):
        return _route_pull(event, settings)
    return _ignore("nothing to do")
