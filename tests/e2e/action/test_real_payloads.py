"""The Action on GitHub's own webhook payloads (`@octokit/webhooks-examples`, the examples
of GitHub's documentation), with every field GitHub sends, not the few the harness
writes: only the repository, the numbers, the branches and the author are the local
GitHub's, so the run acts on what it holds. Whatever else amelia read from a payload (a URL
of api.github.com, the example's `master`) would show here: no host but 127.0.0.1 answers."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness
from tests.e2e.action.test_review_action import FAREWELL_LINES, review_script
from tests.github_webhooks import required_examples

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[ActionHarness]:
    with ActionHarness(tmp_path / "action", script=review_script()) as started:
        yield started


def _example(event_name: str, action: str) -> dict[str, Any]:
    for example in required_examples()[event_name]:
        if example.get("action") == action and not example.get(event_name, {}).get("draft"):
            return copy.deepcopy(example)
    raise AssertionError(f"GitHub's examples hold no {event_name} {action}")


def _repository(harness: ActionHarness, example: dict[str, Any]) -> dict[str, Any]:
    """The example's repository object, naming the local GitHub's repository."""
    owner, name = harness.repo.split("/")
    repository: dict[str, Any] = copy.deepcopy(example["repository"])
    repository.update(full_name=harness.repo, name=name, default_branch="main")
    repository["owner"]["login"] = owner
    return repository


def _by(user: dict[str, Any], login: str) -> dict[str, Any]:
    return {**user, "login": login, "type": "User"}


def test_a_real_issue_comment_asking_for_a_plan_plans_the_issue(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    payload = _example("issue_comment", "created")
    assert "api.github.com" in payload["issue"]["url"]  # GitHub's own, URLs and all
    payload["repository"] = _repository(harness, payload)
    payload["issue"].update(number=number, title="Add a farewell", state="open")
    payload["comment"]["body"] = "/amelia plan"
    payload["comment"]["user"] = _by(payload["comment"]["user"], harness.requester)
    payload["sender"] = _by(payload["sender"], harness.requester)

    result = harness.run_engine("issue_comment", payload)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "success"
    branch = f"amelia/issue-{number}"
    assert result.outputs["branch"] == branch and branch in harness.origin_branches()
    assert "**Goal:**" in harness.origin_file(branch, result.outputs["plan_path"])


def test_a_real_opened_pull_request_gets_its_review(harness: ActionHarness) -> None:
    number, ours = harness.open_pull("feature", {"greeter/core.py": FAREWELL_LINES})
    payload = _example("pull_request", "opened")
    assert "api.github.com" in payload["pull_request"]["url"]
    repository = _repository(harness, payload)
    payload["repository"] = repository
    payload["number"] = number
    pull = payload["pull_request"]
    pull["number"] = number
    for side in ("head", "base"):  # the branches and commits of the local GitHub's pull
        pull[side].update(ref=ours["pull_request"][side]["ref"])
        pull[side].update(sha=ours["pull_request"][side]["sha"], repo=repository)
    pull["user"] = _by(pull["user"], "contributor")
    payload["sender"] = _by(payload["sender"], "contributor")

    result = harness.run_engine("pull_request", payload)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["pr_number"] == str(number)
    assert result.outputs["verdict"] == "changes_requested"
    (review,) = harness.github.reviews(harness.repo, number)
    assert review["commit_id"] == ours["pull_request"]["head"]["sha"]
