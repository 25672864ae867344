"""Which pull heads are data only: one predicate for every mode that reads a head, and the
runs that work on such a head (they start no MCP server)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from amelia.action.modes._pull_head._fork_reviews import head_is_data, serves_a_data_head
from amelia.github.events import Command, Event, parse_event
from amelia.github.models import PullInfo
from amelia.github.payloads import pull_info
from amelia.testing.github import GitHubState, InMemoryGitHub

REPO = {"full_name": "octo/app", "default_branch": "main"}
FORK = {"full_name": "newcomer/app", "fork": True}
USER = {"login": "alice", "type": "User"}


def pull(head_repo: dict[str, Any] | None) -> PullInfo:
    """A pull as the REST API returns it, with its head in `head_repo`."""
    return pull_info(
        {
            "number": 12,
            "title": "Feature",
            "user": USER,
            "head": {"ref": "feature", "sha": "a" * 40, "repo": head_repo},
            "base": {"ref": "main", "sha": "b" * 40, "repo": REPO},
        }
    )


def event(name: str) -> Event:
    if name == "issue_comment":
        issue = {"number": 12, "title": "Feature", "pull_request": {"url": "u"}}
        comment = {"id": 1, "body": "/amelia review", "user": USER}
        payload: dict[str, Any] = {"action": "created", "issue": issue, "comment": comment}
    else:
        head = {"ref": "feature", "sha": "a" * 40, "repo": FORK}
        base = {"ref": "main", "sha": "b" * 40, "repo": REPO}
        payload = {
            "action": "opened",
            "number": 12,
            "pull_request": {"number": 12, "head": head, "base": base},
        }
    return parse_event(name, json.dumps({**payload, "sender": USER, "repository": REPO}))


@pytest.mark.parametrize(
    ("head_repo", "fork"),
    [(REPO, False), ({"full_name": "OCTO/App"}, False), (FORK, True), (None, True)],
)
def test_a_pull_whose_head_is_in_another_or_a_deleted_repository_is_from_a_fork(
    head_repo: dict[str, Any] | None, fork: bool
) -> None:
    assert pull(head_repo).from_fork is fork


@pytest.mark.parametrize(
    "name", ["issue_comment", "pull_request", "pull_request_target", "workflow_dispatch"]
)
def test_a_forks_head_is_data_whatever_the_event(name: str) -> None:
    chosen = event(name) if name != "workflow_dispatch" else parse_event(name, '{"inputs": {}}')
    assert head_is_data(pull(FORK), chosen)
    assert head_is_data(pull(None), chosen)
    # The repository's own branches are checked out, except on pull_request_target.
    assert head_is_data(pull(REPO), chosen) is (name == "pull_request_target")


def comment_on(number: int, *, on_pull: bool) -> Event:
    issue: dict[str, Any] = {"number": number, "title": "t"}
    if on_pull:
        issue["pull_request"] = {"url": "u"}
    comment = {"id": 1, "body": "/amelia review", "user": USER}
    payload = {"action": "created", "issue": issue, "comment": comment, "sender": USER}
    return parse_event("issue_comment", json.dumps({**payload, "repository": REPO}))


def pull_event(name: str, number: int) -> Event:
    head = {"ref": "feature", "sha": "a" * 40, "repo": FORK if number == 2 else REPO}
    base = {"ref": "main", "sha": "b" * 40, "repo": REPO}
    pull_request = {"number": number, "head": head, "base": base}
    payload = {"action": "opened", "number": number, "pull_request": pull_request}
    return parse_event(name, json.dumps({**payload, "sender": USER, "repository": REPO}))


@pytest.mark.parametrize(
    ("kind", "number", "chosen", "expected"),
    [
        ("review", 2, "comment", True),  # a maintainer's `/amelia review` of a fork's pull
        ("ask", 2, "comment", True),
        ("fix", 2, "comment", True),
        ("review", 3, "comment", False),  # a pull from the repository itself
        ("implement", 1, "comment", False),  # an issue: no pull to read
        ("plan", 2, "comment", False),  # no command that reads a pull's head
        ("ask", 2, "dispatch", True),  # the event says nothing: GitHub is asked
        ("ask", 1, "dispatch", False),
        ("review", 2, "pull_request", True),
        ("review", 3, "pull_request", False),
        ("review", 2, "pull_request_target", True),
        ("review", 3, "pull_request_target", True),  # its checkout holds the secrets
    ],
)
async def test_a_run_on_a_forks_pull_request_serves_a_head_kept_as_data(
    kind: str, number: int, chosen: str, expected: bool
) -> None:
    state = GitHubState()
    state.add_repo(REPO["full_name"])
    state.add_issue(REPO["full_name"], "an issue")
    state.add_pull(REPO["full_name"], head="feature", head_repo="newcomer/app")
    state.add_pull(REPO["full_name"], head="own")
    github = InMemoryGitHub(state, REPO["full_name"])
    if chosen == "comment":
        on: Event = comment_on(number, on_pull=number != 1)
    elif chosen == "dispatch":
        on = parse_event("workflow_dispatch", '{"inputs": {}}')
    else:
        on = pull_event(chosen, number)
    command = Command.model_validate({"kind": kind, "number": number})

    assert await serves_a_data_head(github, command, on) is expected
