"""Routing, run in-process: events that must not start an agent, help for an unknown
command, and broken payloads, workspaces or configuration, each one clear error before any
request."""

from __future__ import annotations

import pytest

from amelia.testing.action_harness import ActionHarness


def test_a_reader_who_asks_is_refused_with_one_reply_and_no_agent_runs(
    action: ActionHarness,
) -> None:
    action.set_permission("visitor", "read")
    number = action.add_issue("Add a farewell", "Say goodbye.")
    result = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia plan", "visitor")
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "refused"
    assert not result.agent_requests
    (reply,) = action.github.comments(action.repo, number)
    assert "only people with write access" in reply
    assert action.origin_branches() == ["main"]


QUOTED = {
    "quoted-reply": "> /amelia implement\n\nWhat would this do?",
    "fenced-code": "Try this:\n```\n/amelia implement\n```",
    "indented-code": "    /amelia implement\n\nis how a maintainer starts it",
}


@pytest.mark.parametrize(
    ("event_name", "kind"),
    [
        ("issue_comment", "bot"),
        ("issue_comment", "edited"),
        ("issue_comment", "edited-by-reader"),
        *(("issue_comment", quoted) for quoted in QUOTED),
        ("push", "unrelated"),
    ],
)
def test_events_that_give_no_command_start_nothing_and_ask_github_nothing(
    action: ActionHarness, event_name: str, kind: str
) -> None:
    # Not even a refusal for a reader: only a new comment that gives the command is one.
    action.set_permission("visitor", "read")
    number = action.add_issue("Add a farewell", "Say goodbye.")
    if kind == "bot":
        payload = action.comment_event(number, "/amelia plan", "helper[bot]", user_type="Bot")
    elif kind == "edited":
        payload = action.comment_event(number, "/amelia plan", action="edited")
    elif kind == "edited-by-reader":
        payload = action.comment_event(number, "/amelia implement", "visitor", action="edited")
    elif kind in QUOTED:
        payload = action.comment_event(number, QUOTED[kind], "visitor")
    else:
        payload = {"ref": "refs/heads/main", "repository": {"full_name": action.repo}}
    result = action.run_in_process(event_name, payload)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "skipped"
    assert "::notice::amelia: nothing to do" in result.stdout
    assert not result.agent_requests
    assert result.github_requests == []
    assert action.github.comments(action.repo, number) == []


def test_an_unknown_command_gets_help_listing_the_commands(action: ActionHarness) -> None:
    number = action.add_issue("Add a farewell", "Say goodbye.")
    result = action.run_in_process("issue_comment", action.comment_event(number, "/amelia dance"))

    assert result.exit_code == 0, result.stdout + result.stderr
    (reply,) = action.github.comments(action.repo, number)
    assert "I do not know `/amelia dance`" in reply and "`/amelia plan`" in reply
    assert not result.agent_requests


def test_a_payload_that_is_not_json_is_one_clear_error_with_exit_code_2(
    action: ActionHarness,
) -> None:
    result = action.run_in_process("issue_comment", b"{not json")

    assert result.exit_code == 2
    assert "::error::issue_comment event payload is not valid JSON" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout
    assert result.github_requests == [] and not result.agent_requests


def test_a_payload_missing_fields_is_one_clear_error_with_exit_code_2(
    action: ActionHarness,
) -> None:
    result = action.run_in_process("issue_comment", {"action": "created", "comment": {"id": 1}})

    assert result.exit_code == 2
    assert "::error::issue_comment event payload is invalid" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout


def test_a_missing_token_is_one_clear_error_before_any_request(action: ActionHarness) -> None:
    number = action.add_issue("Add a farewell", "Say goodbye.")
    result = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia plan"),
        inputs={"github_token": ""},
    )

    assert result.exit_code == 2
    assert "::error::no GitHub token" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout
    assert result.github_requests == [] and not result.agent_requests


def test_an_invalid_input_is_one_clear_error_naming_the_input(action: ActionHarness) -> None:
    number = action.add_issue("Add a farewell", "Say goodbye.")
    result = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia plan"),
        inputs={"plan_dir": "../outside"},
    )

    assert result.exit_code == 2
    assert "::error::Invalid action input: INPUT_PLAN_DIR" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("::error")]


@pytest.mark.parametrize("number", [-1, 0, 10**30])
def test_an_issue_number_github_never_sends_is_refused_before_any_request(
    action: ActionHarness, number: int
) -> None:
    action.add_issue("Add a farewell", "Say goodbye.")
    event = action.comment_event(1, "/amelia plan")
    event["issue"]["number"] = number

    # As `amelia run --repo <checkout>` runs it (no --dry-run).
    result = action.run_in_process("issue_comment", event, workspace=action.workspace)

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    (error,) = _error_lines(result.stdout)
    assert error.startswith("::error::issue_comment event payload is invalid: field 'issue.number'")
    assert "Traceback" not in output and "would create comment" not in output
    assert result.github_requests == [] and not result.agent_requests
    assert action.github.requests == []


@pytest.mark.parametrize("workspace", ["missing", "not a checkout", "a file"])
def test_a_workspace_that_is_no_checkout_is_refused_before_any_request(
    action: ActionHarness, workspace: str
) -> None:
    number = action.add_issue("Add a farewell", "Say goodbye.")
    path = action.root / "elsewhere"
    if workspace == "not a checkout":
        path.mkdir()
    if workspace == "a file":
        path.write_text("not a repository\n", encoding="utf-8")
    event = action.comment_event(number, "/amelia plan")

    # As `amelia run --repo <path>` runs it.
    result = action.run_in_process("issue_comment", event, workspace=path)

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    (error,) = _error_lines(result.stdout)
    reasons = {
        "missing": "does not exist",
        "not a checkout": "is not a git checkout",
        "a file": "is not a directory",
    }
    reason = reasons[workspace]
    assert error.startswith(f"::error::the workspace {path} {reason}: check out the repository")
    assert "would create comment" not in output
    assert result.github_requests == [] and not result.agent_requests
    assert action.github.requests == []
