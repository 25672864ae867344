"""Which branch configures a run, and which automatic reviews the configuration turns off."""

from __future__ import annotations

import json
from typing import Any

import pytest

from amelia.action._repository_config import automatic_review_skip, trusted_ref
from amelia.github.events import Command, parse_event
from amelia.repo_config import parse_repo_config
from amelia.testing.github import GitHubState, InMemoryGitHub

REPOSITORY = {"full_name": "octo/app", "default_branch": "trunk"}


def _github(base: str) -> InMemoryGitHub:
    """A repository whose default branch is `trunk`, with pull request #7 into `base`."""
    state = GitHubState()
    state.add_repo(REPOSITORY["full_name"], default_branch="trunk")
    for number in range(1, 7):
        state.add_issue(REPOSITORY["full_name"], f"issue {number}")
    state.add_pull(REPOSITORY["full_name"], head="h", base=base)
    return InMemoryGitHub(state, REPOSITORY["full_name"])


def _pull_event(base: str, login: str = "octocat", kind: str = "User") -> Any:
    actor = {"login": login, "type": kind}
    pull = {
        "number": 7,
        "user": actor,
        "head": {"ref": "feature", "sha": "1" * 40},
        "base": {"ref": base, "sha": "2" * 40},
    }
    payload = {"action": "opened", "number": 7, "pull_request": pull, "sender": actor}
    return parse_event("pull_request", json.dumps({**payload, "repository": REPOSITORY}))


def _comment_event(on_pull: bool) -> Any:
    issue: dict[str, Any] = {"number": 7, "title": "t"}
    if on_pull:
        issue["pull_request"] = {"url": "u"}
    actor = {"login": "maintainer", "type": "User"}
    body = {"id": 1, "body": "/amelia review", "user": actor}
    payload = {"action": "created", "issue": issue, "comment": body, "sender": actor}
    return parse_event("issue_comment", json.dumps({**payload, "repository": REPOSITORY}))


@pytest.mark.parametrize(
    ("kind", "base", "expected"),
    [
        ("review", "release/2.x", "release/2.x"),  # a review: the pull's base
        ("review", "amelia/issue-3", "trunk"),  # never an amelia branch: the default
        ("plan", "release/2.x", "trunk"),  # an issue command: the default branch
    ],
)
async def test_the_trusted_branch(kind: str, base: str, expected: str) -> None:
    github = _github(base)
    command = Command.model_validate({"kind": kind, "number": 7})
    on_event = await trusted_ref(github, command, _pull_event(base), branch_prefix="amelia/")
    on_comment = await trusted_ref(github, command, _comment_event(True), branch_prefix="amelia/")
    assert on_event == on_comment == expected


def test_bots_and_skipped_authors_get_no_automatic_review_but_may_ask_for_one() -> None:
    review = Command(kind="review", number=7)
    config = parse_repo_config(
        b"review:\n  allowed_bots: ['dependabot[bot]']\n  skip_authors: [octocat]\n"
    )
    renovate = _pull_event("trunk", "renovate[bot]", "Bot")
    dependabot = _pull_event("trunk", "dependabot[bot]", "Bot")
    assert "renovate[bot] is a bot not listed" in (
        automatic_review_skip(config.review, review, renovate) or ""
    )
    assert automatic_review_skip(config.review, review, dependabot) is None
    assert "listed in review.skip_authors" in (
        automatic_review_skip(config.review, review, _pull_event("trunk")) or ""
    )
    assert automatic_review_skip(config.review, review, _comment_event(True)) is None
