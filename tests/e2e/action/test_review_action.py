"""`amelia action` end to end for pull request reviews (specified in-process in
`tests/modes/test_review.py`): the reviewer reads the pull's change
and its verdict becomes one review whose inline comments all sit inside the diff's hunks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.anthropic_script import ScriptFunction, text, tool_use

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

STEERING_MARKER = "MARKER-7731-head-steering"
FAREWELL_LINES = (
    "\n\ndef farewell(name: str) -> str:\n"
    '    """Return a goodbye for `name`."""\n'
    '    return f"Bye, {name}!"\n'
)
VERDICT: dict[str, Any] = {
    "verdict": "changes_requested",
    "severity": "major",
    "summary": "farewell is untested",
    "comments": [
        {
            "path": "greeter/core.py",
            "line": 11,
            "severity": "major",
            "body": "Say Goodbye, like greet says Hello",
            "suggestion": '    return f"Goodbye, {name}!"',
        },
        {"path": "README.md", "line": 1, "severity": "minor", "body": "Mention farewell here"},
    ],
}


def review_script() -> ScriptFunction:
    return plan_script(roles={"reviewer": [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]})


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[ActionHarness]:
    with ActionHarness(tmp_path / "action", script=review_script()) as started:
        yield started


def test_opened_pull_gets_one_review_anchored_inside_the_hunks(harness: ActionHarness) -> None:
    number, event = harness.open_pull("feature", {"greeter/core.py": FAREWELL_LINES})
    result = harness.run("pull_request", event)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "changes_requested"
    assert result.outputs["pr_number"] == str(number)
    (review,) = harness.github.reviews(harness.repo, number)
    assert review["state"] == "COMMENTED"
    head = event["pull_request"]["head"]["sha"]
    assert review["commit_id"] == head and f"`{head[:12]}`" in review["body"]
    # Inside the hunk: inline with a suggestion; outside every hunk: listed in the body.
    assert [(c["path"], c["line"]) for c in review["comments"]] == [("greeter/core.py", 11)]
    assert "```suggestion" in review["comments"][0]["body"]
    assert "`README.md:1`" in review["body"] and "Mention farewell here" in review["body"]
    assert "**Severity:** major" in review["body"]
    assert "farewell" in result.model_text()  # the reviewer saw the pull's change


def test_dry_run_review_saves_the_review_and_posts_nothing(harness: ActionHarness) -> None:
    number, event = harness.open_pull("feature", {"greeter/core.py": FAREWELL_LINES})
    result = harness.run_local("pull_request", event)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "dry_run"
    assert result.github_writes == []
    assert harness.github.reviews(harness.repo, number) == []
    (saved,) = result.dry_run_dir.glob("*-create_review.json")
    review = json.loads(saved.read_text(encoding="utf-8"))
    assert review["pull_number"] == number and review["event"] == "COMMENT"
    assert [(c["path"], c["line"]) for c in review["comments"]] == [("greeter/core.py", 11)]
