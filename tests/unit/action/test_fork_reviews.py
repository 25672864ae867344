"""Which pull heads are data only: one predicate for every mode that reads a head."""

from __future__ import annotations

import json
from typing import Any

import pytest

from amelia.action.fork_reviews import head_is_data
from amelia.github.events import Event, parse_event
from amelia.github.models import PullInfo
from amelia.github.payloads import pull_info

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
