"""The repository's own CI after each push, run in-process: amelia starts the repository's
workflows (a dispatch with the job's token; nothing with a personal token, whose push starts
them) on the in-memory GitHub, which completes them with scripted conclusions and logs; a
failure goes back to the developer, and only passing CI lets a change be approved. The
conditional requests of the wait run through the real adapter in
`tests/e2e/action/test_repository_ci_action.py`."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.usage import RequestUsage

from amelia.testing.action_harness import ActionHarness, ActionRun
from amelia.testing.github import RunScript
from amelia.testing.scripted_agents import ScriptedAgents, final_result, say, write_file

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
CI_ON_PULL_REQUESTS = "name: CI\non: pull_request\njobs: {}\n"
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


def _texts(messages: list[ModelMessage] | tuple[ModelMessage, ...]) -> list[tuple[str, str]]:
    """(role, text) of every message of a conversation."""
    found: list[tuple[str, str]] = []
    for message in messages:
        if isinstance(message, ModelResponse):
            said = [p.content for p in message.parts if isinstance(p, TextPart)]
            found.append(("assistant", "\n".join(said)))
        else:
            asked = [
                p.content
                for p in message.parts
                if isinstance(p, UserPromptPart) and isinstance(p.content, str)
            ]
            found.append(("user", "\n".join(asked)))
    return found


def ci_agents() -> ScriptedAgents:
    """The developer writes a farewell that fails CI, and fixes it once the CI failure is
    in its prompt; the reviewer approves whatever it sees."""

    def developer(messages: list[ModelMessage]) -> list[Any]:
        texts = _texts(messages)
        fixing = [i for i, (role, t) in enumerate(texts) if role == "user" and FIX_MARK in t]
        since = texts[fixing[-1] :] if fixing else texts
        if any(role == "assistant" for role, _ in since):
            return [say("Done.")]
        return [write_file("greeter/farewell.py", FIXED if fixing else BUGGY)]

    return ScriptedAgents({"developer": [developer], "reviewer": [[final_result(**APPROVED)]]})


def _configure(action: ActionHarness, workflow: str, *, timeout: float = 2.0) -> int:
    config = f"ci:\n  timeout_minutes: {timeout}\n  poll_seconds: 0.05\n"
    action.commit_files(
        "main", {".github/workflows/ci.yml": workflow, ".github/amelia.yml": config}
    )
    number = action.add_planned_issue("Add a farewell", "Let greeter say goodbye too.")
    action.fresh_checkout()
    return number


def _implement(action: ActionHarness, number: int, **inputs: str) -> ActionRun:
    return action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement"), inputs=inputs
    )


def _developer_prompts(result: ActionRun) -> list[str]:
    return [
        "\n".join(t for role, t in _texts(r.messages) if role == "user")
        for r in result.agent_requests
        if r.role == "developer"
    ]


def test_ci_that_does_not_finish_in_time_is_shown_running_and_never_approved(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    # The run never finishes; the dispatched run is seen at the wait's first look, which
    # comes before any deadline, so the shortest wait shows it as well as a long one.
    number = _configure(action, CI, timeout=0.001)
    action.github.script_runs(action.repo, "ci.yml", RunScript(reads=None))
    result = _implement(action, number, review_event="AUTO")

    assert result.exit_code == 0, result.stdout + result.stderr
    (run,) = action.github.state.actions(action.repo).runs
    run_url = f"https://github.com/octo/app/actions/runs/{run.id}"
    (pull,) = action.github.pulls(action.repo)
    assert "**still running** after amelia waited 0.001 min" in pull["body"]
    assert f"[CI]({run_url}): **still running**" in pull["body"]
    (review,) = action.github.reviews(action.repo, pull["number"])
    assert review["state"] == "COMMENTED"
    assert "still running" in review["body"] and "does not approve" in review["body"]
    assert "## amelia review: ⚠️ CI has not passed" in review["body"]
    assert "Not all pushed" not in review["body"]
    # The reviewer approved, but neither the output nor the description says approved.
    assert result.outputs["verdict"] == "ci_not_passed"
    assert "Latest automated verdict: **ci_not_passed**" in pull["body"]
    assert "| `verdict` | `ci_not_passed` |" in result.summary


def test_with_a_personal_token_nothing_is_dispatched_and_the_push_starts_ci(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    number = _configure(action, CI)
    action.github.state.token_user.login = "octo-maintainer"
    action.github.oauth_scopes = ("repo", "workflow")
    # The draft is opened after the rounds: its pull_request runs come with a pull.
    action.github.state.add_pull(action.repo, head=f"amelia/issue-{number}")
    action.github.script_runs(action.repo, "ci.yml", RunScript(reads=2))
    action.github.state.install_app(action.repo, "codecov", "codecov/patch")
    result = _implement(action, number)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert [r for r in result.github_requests if r.path.endswith("/dispatches")] == []
    suites = [r for r in result.github_requests if r.path.endswith("/check-suites")]
    assert suites
    (run,) = action.github.state.actions(action.repo).runs
    assert (run.event, run.conclusion) == ("pull_request", "success")
    pull = action.github.pulls(action.repo)[0]
    assert "started by amelia's push" in pull["body"] and "**passed**" in pull["body"]
    # The other app's check suite amelia waited for is listed with its link.
    (suite,) = action.github.state.actions(action.repo).other_suites
    check_url = f"https://github.com/octo/app/runs/{suite.id + 1}"
    line = f"[codecov (codecov/patch)]({check_url}) (check suite of another app): **success**"
    assert line in pull["body"] and line in result.summary


def test_with_a_personal_token_the_draft_opens_at_the_first_push_so_pull_request_ci_runs(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    number = _configure(action, CI_ON_PULL_REQUESTS)
    action.github.state.token_user.login = "octo-maintainer"
    action.github.oauth_scopes = ("repo", "workflow")
    action.github.script_runs(
        action.repo,
        "ci.yml",
        RunScript(conclusion="failure", log=FAILING_LOG, reads=1),
        RunScript(conclusion="success", reads=1),
    )
    result = _implement(action, number)

    assert result.exit_code == 0, result.stdout + result.stderr
    requests = result.github_requests
    assert [r for r in requests if r.path.endswith("/dispatches")] == []
    # One draft, opened before amelia first waited for the checks of its push.
    (opened,) = [r for r in requests if (r.method, r.path) == ("POST", "/repos/octo/app/pulls")]
    waits = [r for r in requests if r.method == "GET" and r.path.endswith("/check-suites")]
    assert waits and requests.index(opened) < requests.index(waits[0])
    (pull,) = action.github.pulls(action.repo)
    assert pull["draft"] is True
    # Opening it started the first run, round 2's push the second.
    branch = f"amelia/issue-{number}"
    head = action.origin_git("rev-parse", branch).strip()
    runs = action.github.state.actions(action.repo).runs
    assert [(r.event, r.conclusion) for r in runs] == [
        ("pull_request", "failure"),
        ("pull_request", "success"),
    ]
    assert runs[1].head_sha == head != runs[0].head_sha
    rounds = [p for p in _developer_prompts(result) if FIX_MARK in p]
    assert rounds and FAILING_LINE in rounds[0]
    assert action.origin_file(branch, "greeter/farewell.py") == FIXED
    run_url = f"https://github.com/octo/app/actions/runs/{runs[1].id}"
    assert f"Repository CI on `{head[:12]}`" in pull["body"]
    assert f"[CI]({run_url}): **success**" in pull["body"]


def test_without_actions_write_a_warning_names_it_and_no_approval_claims_ci(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    number = _configure(action, CI)
    action.github.state.actions_permission = "read"
    result = _implement(action, number, review_event="AUTO")

    assert result.exit_code == 0, result.stdout + result.stderr
    warnings = [line for line in result.stdout.splitlines() if "actions: write" in line]
    assert len(warnings) == 1 and warnings[0].startswith("::warning::")
    assert "`actions: write`" in result.summary
    (pull,) = action.github.pulls(action.repo)
    (review,) = action.github.reviews(action.repo, pull["number"])
    assert "CI" not in review["body"]
    assert "Repository CI on" not in pull["body"]


def test_a_repository_whose_workflows_take_no_dispatch_is_told_what_to_add(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    number = _configure(action, CI_WITHOUT_DISPATCH)
    result = _implement(action, number)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert [r for r in result.github_requests if r.path.endswith("/dispatches")] == []
    line = "Add `workflow_dispatch:` to their `on:` triggers"
    assert line in result.summary
    (pull,) = action.github.pulls(action.repo)
    assert line in pull["body"] and "`ci.yml`" in pull["body"]


def test_without_waiting_a_dispatched_implement_hands_the_failed_run_to_the_developer(
    action: ActionHarness,
) -> None:
    action.agents = ci_agents()
    config = "ci:\n  wait: false\n"
    action.commit_files("main", {".github/workflows/ci.yml": CI, ".github/amelia.yml": config})
    number = action.add_planned_issue("Add a farewell", "Let greeter say goodbye too.")
    action.fresh_checkout()
    action.github.script_runs(
        action.repo,
        "ci.yml",
        RunScript(conclusion="failure", log=FAILING_LOG, reads=1),
        RunScript(reads=None),
    )
    first = _implement(action, number, review_event="AUTO")
    assert first.exit_code == 0, first.stdout + first.stderr
    pull = action.github.pulls(action.repo)[0]
    assert "**still running**" in pull["body"]
    assert action.github.reviews(action.repo, pull["number"])[0]["state"] != "APPROVED"
    assert first.outputs["verdict"] == "ci_not_passed"
    assert not [p for p in _developer_prompts(first) if FIX_MARK in p]

    # CI finishes (failed) after amelia's job ended; the workflow on `workflow_run`
    # dispatches amelia's workflow on the pull request (as github-actions[bot]).
    action.github.state.actions(action.repo).read_runs(None)
    action.fresh_checkout()
    payload = action.dispatch_event(issue_number=str(pull["number"]), command="implement")
    payload["sender"] = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}
    second = action.run_in_process("workflow_dispatch", payload)

    assert second.exit_code == 0, second.stdout + second.stderr
    rounds = [p for p in _developer_prompts(second) if FIX_MARK in p]
    assert rounds and FAILING_LINE in rounds[0]
    branch = f"amelia/issue-{number}"
    assert action.origin_file(branch, "greeter/farewell.py") == FIXED


def test_a_run_stopped_by_its_budget_shows_the_ci_of_the_work_it_pushed(
    action: ActionHarness,
) -> None:
    # The developer writes, then answers at a cost over the budget: the run stops there.
    costly = ModelResponse(
        parts=[say("Now the tests")],
        usage=RequestUsage(output_tokens=200_000, cost=Decimal("3")),
    )
    action.agents = ScriptedAgents(
        {"developer": [[write_file("greeter/farewell.py", BUGGY)], costly, [say("Done")]]}
    )
    number = _configure(action, CI)
    action.github.script_runs(
        action.repo, "ci.yml", RunScript(conclusion="failure", log=FAILING_LOG, reads=1)
    )
    result = _implement(action, number, max_cost_usd="0.5")

    assert result.exit_code == 1, result.stdout + result.stderr
    assert "stopped: budget of $0.5 reached during developer" in result.summary
    branch = f"amelia/issue-{number}"
    head = action.origin_git("rev-parse", branch).strip()
    (run,) = action.github.state.actions(action.repo).runs
    assert run.head_sha == head
    run_url = f"https://github.com/octo/app/actions/runs/{run.id}"
    shown = f"[CI]({run_url}): **failure**"
    assert f"Repository CI on `{head[:12]}`" in result.summary and shown in result.summary
    assert FAILING_LINE in result.summary
    (pull,) = action.github.pulls(action.repo)
    assert shown in pull["body"]
