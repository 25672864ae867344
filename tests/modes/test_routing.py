"""Routing, run in-process: events that must not start an agent, help for an unknown
command, and broken payloads or configuration, each one clear error."""

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
