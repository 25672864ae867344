"""`amelia action` and `amelia run` given a broken payload or workspace: one clear error
and exit code 2 from the real entry points, before any request. Routing, and every kind of
broken payload and workspace, is specified in-process in `tests/modes/test_routing.py`."""

from __future__ import annotations

import json

import pytest

from amelia.testing.action_harness import ActionHarness

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_malformed_payload_is_one_clear_error(harness: ActionHarness) -> None:
    result = harness.run("issue_comment", b"{not json")

    assert result.exit_code == 2
    assert "::error::issue_comment event payload is not valid JSON" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout
    assert result.github_requests == [] and result.model_requests == []


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("::error")]


def test_amelia_run_refuses_an_issue_number_github_never_sends_before_any_request(
    harness: ActionHarness,
) -> None:
    harness.add_issue("Add a farewell", "Say goodbye.")
    event = harness.comment_event(1, "/amelia plan")
    event["issue"]["number"] = 0

    result = harness.run_local("issue_comment", event, dry_run=False)

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    (error,) = _error_lines(result.stdout)
    assert error.startswith("::error::issue_comment event payload is invalid: field 'issue.number'")
    assert "Traceback" not in output and "would create comment" not in output
    assert result.github_requests == [] and result.model_requests == []


def test_amelia_run_refuses_a_repo_that_is_no_checkout_before_any_request(
    harness: ActionHarness,
) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    path = harness.root / "elsewhere"
    path.write_text("not a repository\n", encoding="utf-8")
    event = harness.comment_event(number, "/amelia plan")
    events = harness.root / "event.json"
    events.write_text(json.dumps(event), encoding="utf-8")
    args = ["run", "--event-name", "issue_comment", "--event-path", str(events)]

    result = harness.run("issue_comment", event, args=[*args, "--repo", str(path)])

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    (error,) = _error_lines(result.stdout)
    assert error.startswith(
        f"::error::the workspace {path} is not a directory: check out the repository"
    )
    assert "would create comment" not in output
    assert result.github_requests == [] and result.model_requests == []


def test_amelia_run_refuses_an_empty_repo_instead_of_working_in_the_current_directory(
    harness: ActionHarness,
) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    event = harness.comment_event(number, "/amelia plan")
    events = harness.root / "event.json"
    events.write_text(json.dumps(event), encoding="utf-8")
    args = ["run", "--event-name", "issue_comment", "--event-path", str(events), "--repo", ""]

    result = harness.run("issue_comment", event, args=args)

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    assert output.strip().splitlines() == [
        "::error::--repo is empty: give the path of the checkout, or leave --repo out to work "
        "in GITHUB_WORKSPACE or the current directory"
    ]
    assert result.github_requests == [] and result.model_requests == []
