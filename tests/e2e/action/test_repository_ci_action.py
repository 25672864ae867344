"""`amelia action` end to end with the repository's own CI: after each push amelia starts
the repository's workflows (a dispatch with the job's token; nothing with a personal
token, whose push starts them) on the local GitHub, which completes them with scripted
conclusions and logs; a failure goes back to the developer, and only passing CI lets a
change be approved. The failing-then-passing run shows the wait's conditional requests
through the real adapter; the other cases are specified in-process in
`tests/modes/test_repository_ci.py`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, ActionRun
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.github import RunScript
from amelia.testing.scripted_claude import role_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

CI = """name: CI
on:
  pull_request:
  push:
    branches: [main]
  workflow_dispatch:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""
CI_WITHOUT_DISPATCH = "name: CI\non: [push, pull_request]\njobs: {}\n"
FAILING_LINE = "FAILED tests/test_farewell.py::test_bye - AssertionError: 'Bye' != 'Goodbye'"
FAILING_LOG = (
    "2026-01-01T10:00:00.0000000Z ##[group]Run pytest\n"
    "2026-01-01T10:00:01.0000000Z collected 4 items\n"
    f"2026-01-01T10:00:02.0000000Z {FAILING_LINE}\n"
    "2026-01-01T10:00:03.0000000Z ##[error]Process completed with exit code 1.\n"
)
BUGGY = 'def farewell(name: str) -> str:\n    return f"Bye, {name}!"\n'
FIXED = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "none",
    "summary": "farewell mirrors greet",
    "comments": [],
}
FIX_MARK = "The repository's CI above fails on your changes"


def _texts(request: RecordedRequest) -> list[tuple[str, str]]:
    """(role, text) of every message of the request."""
    found: list[tuple[str, str]] = []
    for message in (request.body or {}).get("messages", []):
        content = message.get("content")
        blocks = [content] if isinstance(content, str) else content or []
        parts = [b if isinstance(b, str) else str(b.get("text") or "") for b in blocks]
        found.append((str(message.get("role")), "\n".join(parts)))
    return found


class Model:
    """The developer writes a farewell that fails CI, and fixes it once the CI failure is
    in its prompt; the reviewer approves whatever it sees."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace

    def __call__(self, request: RecordedRequest) -> Turn:
        if role_of(request) != "developer":
            return [tool_use("StructuredOutput", APPROVED)]
        messages = _texts(request)
        fixing = [i for i, (role, t) in enumerate(messages) if role == "user" and FIX_MARK in t]
        since = messages[fixing[-1] :] if fixing else messages
        answered = sum(1 for role, _ in since if role == "assistant")
        if answered:
            return [text("Done.")]
        content = FIXED if fixing else BUGGY
        path = str(self.workspace / "greeter" / "farewell.py")
        return [tool_use("Write", {"file_path": path, "content": content})]


def _configure(harness: ActionHarness, workflow: str, *, timeout: float = 2.0) -> int:
    config = f"ci:\n  timeout_minutes: {timeout}\n  poll_seconds: 0.05\n"
    harness.commit_files(
        "main", {".github/workflows/ci.yml": workflow, ".github/amelia.yml": config}
    )
    number = harness.add_planned_issue("Add a farewell", "Let greeter say goodbye too.")
    harness.fresh_checkout()
    return number


def failing_then_passing(harness: ActionHarness) -> int:
    """An issue planned in a repository whose CI fails on the first push and passes on the
    second: the issue's number."""
    number = _configure(harness, CI)
    harness.github.script_runs(
        harness.repo,
        "ci.yml",
        RunScript(conclusion="failure", log=FAILING_LOG, reads=2),
        RunScript(conclusion="success", reads=1),
    )
    return number


def _implement(harness: ActionHarness, number: int, **inputs: str) -> ActionRun:
    return harness.run(
        "issue_comment", harness.comment_event(number, "/amelia implement"), inputs=inputs
    )


def _developer_prompts(result: ActionRun) -> list[str]:
    return [
        "\n".join(t for role, t in _texts(r) if role == "user")
        for r in result.model_requests
        if role_of(r) == "developer"
    ]


def test_a_failing_ci_goes_back_to_the_developer_and_the_passing_one_is_shown(
    tmp_path: Path,
) -> None:
    root = tmp_path / "action"
    with ActionHarness(root, script=Model(root / "workspace")) as harness:
        number = failing_then_passing(harness)
        result = _implement(harness, number, review_event="AUTO")

        assert result.exit_code == 0, result.stdout + result.stderr
        branch = f"amelia/issue-{number}"
        assert harness.origin_file(branch, "greeter/farewell.py") == FIXED
        # Dispatched on amelia's branch after each of the two pushes.
        actions = harness.github.state.actions(harness.repo)
        assert actions.dispatches == [(".github/workflows/ci.yml", branch)] * 2
        dispatches = harness.github.requests_to("POST", r".*/actions/workflows/\d+/dispatches")
        assert [r.body for r in dispatches] == [{"ref": branch}] * 2
        # Round 2's developer prompt holds the failing test's log line.
        rounds = [p for p in _developer_prompts(result) if FIX_MARK in p]
        assert rounds and FAILING_LINE in rounds[0]
        assert "job `test`, step `Run tests`" in rounds[0]

        head = harness.origin_git("rev-parse", branch).strip()
        (passing,) = [run for run in actions.runs if run.head_sha == head]
        run_url = f"https://github.com/octo/app/actions/runs/{passing.id}"
        (pull,) = harness.github.pulls(harness.repo)
        assert f"Repository CI on `{head[:12]}`" in pull["body"]
        assert f"[CI]({run_url}): **success**" in pull["body"]
        (review,) = harness.github.reviews(harness.repo, pull["number"])
        assert review["state"] == "APPROVED" and review["commit_id"] == head
        assert f"[CI]({run_url}): success" in review["body"]
        assert f"[CI]({run_url}): **success**" in result.summary
        assert result.outputs["verdict"] == "approved"
        comments = harness.github.comments(harness.repo, number)
        (progress,) = [c for c in comments if progress_marker(number) in c]
        assert "repository CI" in progress and f"passed on {head[:12]}" in progress
        # The wait looked with conditional requests.
        looks = harness.github.requests_to("GET", r"/repos/octo/app/actions/runs")
        assert any(r.headers.get("if-none-match") for r in looks)
