"""Fuzzing the webhook parser and the router: hostile payloads end in EventError, never a crash."""

from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from amelia.errors import EventError
from amelia.github.events import Event, RoutingSettings, parse_event, route

EVENT_NAMES = ("issue_comment", "issues", "pull_request", "workflow_dispatch", "schedule", "push")

USER = {"login": "octocat", "type": "User"}
REAL_SHAPES: dict[str, dict[str, Any]] = {
    "issue_comment": {
        "action": "created",
        "sender": USER,
        "repository": {"full_name": "o/r", "default_branch": "main"},
        "issue": {"number": 7, "title": "Bug", "body": "text", "user": USER, "labels": []},
        "comment": {"id": 11, "body": "/amelia plan keep it small", "user": USER},
    },
    "issues": {
        "action": "labeled",
        "sender": USER,
        "issue": {"number": 7, "title": "Bug", "labels": [{"name": "amelia"}]},
        "label": {"name": "amelia"},
    },
    "pull_request": {
        "action": "opened",
        "number": 3,
        "sender": USER,
        "pull_request": {
            "number": 3,
            "draft": False,
            "head": {"ref": "feature", "sha": "a" * 40},
            "base": {"ref": "main", "sha": "b" * 40},
        },
    },
    "workflow_dispatch": {"sender": USER, "inputs": {"issue_number": "7", "command": "plan"}},
    "schedule": {"schedule": "0 3 * * *"},
}

json_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=30)
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=20,
)
SETTINGS = (
    RoutingSettings(),
    RoutingSettings(trigger_phrase="@bot", label_trigger=None, review_drafts=True),
    RoutingSettings(review_pull_requests=False),
)


def parse_or_error(name: str, payload: bytes | str) -> Event | None:
    """The parser's contract: an Event or an EventError with a one-line message."""
    try:
        event = parse_event(name, payload)
    except EventError as error:
        assert str(error) and "\n" not in str(error)
        assert str(error).startswith(name)
        return None
    for routing in SETTINGS:
        command = route(event, routing)
        assert command.kind != "ignore" or command.reason
    return event


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(EVENT_NAMES), payload=st.binary(max_size=300))
def test_arbitrary_bytes_parse_or_fail_cleanly(name: str, payload: bytes) -> None:
    parse_or_error(name, payload)


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(EVENT_NAMES), value=json_values)
def test_arbitrary_json_parses_or_fails_cleanly(name: str, value: Any) -> None:
    parse_or_error(name, json.dumps(value))


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, child in node.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            found += _paths(child, (*prefix, index))
    return found


def _mutate(payload: dict[str, Any], path: tuple[Any, ...], value: Any, delete: bool) -> None:
    parent: Any = payload
    for step in path[:-1]:
        parent = parent[step]
    if delete and isinstance(parent, dict):
        del parent[path[-1]]
    else:
        parent[path[-1]] = value


@st.composite
def mutated_real_payloads(draw: st.DrawFn) -> tuple[str, str]:
    shape = draw(st.sampled_from(sorted(REAL_SHAPES)))
    payload = copy.deepcopy(REAL_SHAPES[shape])
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(payload)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        _mutate(payload, path, draw(json_values), draw(st.booleans()))
    # A real payload sent under the name of another event is part of the hostile space too.
    name = draw(st.sampled_from((shape, shape, *EVENT_NAMES)))
    return name, json.dumps(payload)


@settings(max_examples=300, deadline=None)
@given(case=mutated_real_payloads())
def test_real_payloads_with_mutated_fields_parse_or_fail_cleanly(case: tuple[str, str]) -> None:
    name, payload = case
    parse_or_error(name, payload)


@settings(max_examples=100, deadline=None)
@given(body=st.text(max_size=200), action=st.sampled_from(("created", "edited", "deleted")))
def test_any_comment_text_routes_without_raising(body: str, action: str) -> None:
    payload = copy.deepcopy(REAL_SHAPES["issue_comment"])
    payload["action"] = action
    payload["comment"]["body"] = body
    event = parse_or_error("issue_comment", json.dumps(payload))
    assert event is not None


@settings(max_examples=100, deadline=None)
@given(
    issue_number=st.one_of(st.text(max_size=8), st.integers(), st.none()),
    command=st.one_of(st.text(max_size=12), st.none(), st.integers()),
)
def test_any_dispatch_inputs_route_without_raising(issue_number: Any, command: Any) -> None:
    payload = {"sender": USER, "inputs": {"issue_number": issue_number, "command": command}}
    parse_or_error("workflow_dispatch", json.dumps(payload))


def test_deeply_nested_payload_is_an_event_error() -> None:
    nested = "[" * 100_000 + "]" * 100_000
    for name in EVENT_NAMES:
        assert parse_or_error(name, nested) is None
