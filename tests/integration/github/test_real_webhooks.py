"""GitHub's own webhook payloads (the examples of its documentation, `@octokit/webhooks-
examples`) through amelia's event parser and router: every one is read without raising,
and those of the events amelia's workflows listen to start what they should."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from amelia.errors import EventError
from amelia.github.events import FORKS_OFF_REASON, Command, RoutingSettings, parse_event, route
from tests.github_webhooks import required_examples

SETTINGS = RoutingSettings()
LISTENED = (
    "issue_comment",
    "issues",
    "pull_request",
    "pull_request_review_comment",
    "workflow_dispatch",
)
"""The events of amelia's example workflows (`pull_request_target` carries the payload of
`pull_request`)."""
REVIEWED = frozenset({"opened", "reopened", "synchronize", "ready_for_review"})


def _routed(event_name: str, payload: dict[str, Any], **settings: Any) -> Command:
    routing = SETTINGS.model_copy(update=settings) if settings else SETTINGS
    return route(parse_event(event_name, json.dumps(payload)), routing)


def _examples(event_name: str, action: str | None = None) -> list[dict[str, Any]]:
    found = [
        example
        for example in required_examples()[event_name]
        if action is None or example.get("action") == action
    ]
    assert found, f"GitHub's examples hold no {event_name} {action or ''}"
    return found


def test_every_example_of_every_event_is_read_and_routed_without_raising() -> None:
    examples = required_examples()
    failures: list[str] = []
    seen = 0
    for name, payloads in examples.items():
        for index, payload in enumerate(payloads):
            seen += 1
            where = f"{name} {payload.get('action', '')} #{index}"
            try:
                event = parse_event(name, json.dumps(payload))
            except EventError as error:  # a clear refusal is allowed, but not for ours
                if name in LISTENED:
                    failures.append(f"{where}: {error}")
                continue
            except Exception as error:  # any other exception is the failure
                failures.append(f"{where}: {type(error).__name__}: {error}")
                continue
            try:
                command = route(event, SETTINGS)
            except Exception as error:
                failures.append(f"{where}: route raised {type(error).__name__}: {error}")
                continue
            if name not in LISTENED and command.kind != "ignore":
                failures.append(f"{where}: an event amelia does not act on routed to {command}")
    assert failures == []
    assert len(examples) >= 50 and seen >= 300  # the whole set, not a stray file


@pytest.mark.parametrize(
    ("body", "kind", "instructions"),
    [
        ("/amelia plan", "plan", ""),
        ("/amelia implement keep it small", "implement", "keep it small"),
        ("/amelia ask why is greet slow?", "ask", "why is greet slow?"),
        ("/amelia help", "help", ""),
        ("/amelia review", "unknown-command", ""),  # on an issue: says where it works
    ],
)
def test_a_command_in_a_real_issue_comment_starts_it_for_its_author(
    body: str, kind: str, instructions: str
) -> None:
    for example in _examples("issue_comment", "created"):
        payload = copy.deepcopy(example)
        payload["comment"]["body"] = body
        command = _routed("issue_comment", payload)
        assert command.kind == kind
        assert command.number == payload["issue"]["number"]
        assert command.requested_by == payload["comment"]["user"]["login"]
        assert command.comment_id == payload["comment"]["id"]
        assert command.instructions == instructions


def test_a_real_comment_that_is_no_command_or_not_new_or_by_a_bot_starts_nothing() -> None:
    for example in _examples("issue_comment"):
        assert _routed("issue_comment", example).kind == "ignore"  # the examples' own text
        if example["action"] == "created":
            payload = copy.deepcopy(example)
            payload["comment"]["body"] = "/amelia plan"
            payload["comment"]["user"] |= {"login": "helper[bot]", "type": "Bot"}
            assert _routed("issue_comment", payload).kind == "ignore"
        else:  # edited or deleted: only a new comment is a command
            payload = copy.deepcopy(example)
            payload["comment"]["body"] = "/amelia plan"
            assert _routed("issue_comment", payload).kind == "ignore"


@pytest.mark.parametrize(
    ("body", "kind", "instructions"),
    [
        ("/amelia fix", "fix", ""),
        ("/amelia fix rename it too", "fix", "rename it too"),
        ("/amelia review", "review", ""),
        ("/amelia why a loop here?", "ask", "why a loop here?"),
    ],
)
def test_a_command_in_a_real_review_comment_answers_in_its_thread(
    body: str, kind: str, instructions: str
) -> None:
    for example in _examples("pull_request_review_comment", "created"):
        payload = copy.deepcopy(example)
        payload["comment"]["body"] = body
        command = _routed("pull_request_review_comment", payload)
        comment = payload["comment"]
        assert command.kind == kind
        assert command.number == payload["pull_request"]["number"]
        assert command.requested_by == comment["user"]["login"]
        assert command.reply_to == (comment.get("in_reply_to_id") or comment["id"])
        assert command.instructions == instructions


@pytest.mark.parametrize(
    ("event_name", "settings"),
    [
        ("pull_request", {}),
        # amelia-review-forks.yml: a run with secrets and a write token, only when asked.
        ("pull_request_target", {"review_forks": True}),
    ],
)
def test_a_real_pull_request_event_is_reviewed_only_when_its_code_changes(
    event_name: str, settings: dict[str, Any]
) -> None:
    for example in _examples("pull_request"):
        command = _routed(event_name, example, **settings)
        action, draft = example["action"], example["pull_request"]["draft"]
        if action in REVIEWED and not draft:
            assert command.kind == "review", action
            assert command.number == example["pull_request"]["number"]
        else:
            assert command.kind == "ignore", action
    for example in _examples("pull_request", "opened"):
        as_draft = copy.deepcopy(example)
        as_draft["pull_request"]["draft"] = True
        assert _routed(event_name, as_draft, **settings).kind == "ignore"
        assert _routed(event_name, as_draft, **settings, review_drafts=True).kind == "review"
        off = {**settings, "review_pull_requests": False}
        assert _routed(event_name, example, **off).kind == "ignore"


def test_a_real_pull_request_target_event_is_not_reviewed_unless_forks_are() -> None:
    for example in _examples("pull_request", "opened"):
        command = _routed("pull_request_target", example)
        assert (command.kind, command.reason) == ("ignore", FORKS_OFF_REASON)


def test_a_real_issues_event_plans_only_when_the_trigger_label_is_added() -> None:
    for example in _examples("issues"):
        assert _routed("issues", example).kind == "ignore"  # the examples' own labels
    for example in _examples("issues", "labeled"):
        payload = copy.deepcopy(example)
        payload["label"]["name"] = "Amelia"
        command = _routed("issues", payload)
        assert command.kind == "plan"
        assert command.number == payload["issue"]["number"]
        assert command.requested_by == payload["sender"]["login"]
        assert _routed("issues", payload, label_trigger=None).kind == "ignore"
    for example in _examples("issues", "unlabeled"):
        payload = copy.deepcopy(example)
        payload["label"]["name"] = "amelia"
        assert _routed("issues", payload).kind == "ignore"


def test_a_real_workflow_dispatch_scans_or_runs_its_inputs_command() -> None:
    for example in _examples("workflow_dispatch"):
        assert _routed("workflow_dispatch", example).kind == "scan"  # no inputs
        payload = copy.deepcopy(example)
        payload["inputs"] = {"command": "implement", "issue_number": "7"}  # strings, as sent
        command = _routed("workflow_dispatch", payload)
        assert (command.kind, command.number) == ("implement", 7)
        assert command.requested_by == payload["sender"]["login"]
