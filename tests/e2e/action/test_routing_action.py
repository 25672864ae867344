"""`amelia action` for events that must not start an agent, and for broken configuration."""

from __future__ import annotations

import json

import pytest

from amelia.testing.action_harness import ActionHarness

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]


def test_reader_is_refused_with_one_reply(harness: ActionHarness) -> None:
    harness.set_permission("visitor", "read")
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    result = harness.run("issue_comment", harness.comment_event(number, "/amelia plan", "visitor"))

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "refused"
    assert result.model_requests == []
    (reply,) = harness.github.comments(harness.repo, number)
    assert "only people with write access" in reply
    assert harness.origin_branches() == ["main"]


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
def test_events_that_start_nothing(harness: ActionHarness, event_name: str, kind: str) -> None:
    # Not even a refusal for a reader: only a new comment that gives the command is one.
    harness.set_permission("visitor", "read")
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    if kind == "bot":
        payload = harness.comment_event(number, "/amelia plan", "helper[bot]", user_type="Bot")
    elif kind == "edited":
        payload = harness.comment_event(number, "/amelia plan", action="edited")
    elif kind == "edited-by-reader":
        payload = harness.comment_event(number, "/amelia implement", "visitor", action="edited")
    elif kind in QUOTED:
        payload = harness.comment_event(number, QUOTED[kind], "visitor")
    else:
        payload = {"ref": "refs/heads/main", "repository": {"full_name": harness.repo}}
    result = harness.run(event_name, payload)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "skipped"
    assert "::notice::amelia: nothing to do" in result.stdout
    assert result.model_requests == []
    assert result.github_requests == []
    assert harness.github.comments(harness.repo, number) == []


def test_help_lists_the_commands(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    result = harness.run("issue_comment", harness.comment_event(number, "/amelia dance"))

    assert result.exit_code == 0, result.stdout + result.stderr
    (reply,) = harness.github.comments(harness.repo, number)
    assert "I do not know `/amelia dance`" in reply and "`/amelia plan`" in reply
    assert result.model_requests == []


def test_malformed_payload_is_one_clear_error(harness: ActionHarness) -> None:
    result = harness.run("issue_comment", b"{not json")

    assert result.exit_code == 2
    assert "::error::issue_comment event payload is not valid JSON" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout
    assert result.github_requests == [] and result.model_requests == []


def test_payload_missing_fields_is_one_clear_error(harness: ActionHarness) -> None:
    result = harness.run("issue_comment", {"action": "created", "comment": {"id": 1}})

    assert result.exit_code == 2
    assert "::error::issue_comment event payload is invalid" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout


def test_missing_token_is_one_clear_error(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    result = harness.run(
        "issue_comment",
        harness.comment_event(number, "/amelia plan"),
        inputs={"github_token": ""},
    )

    assert result.exit_code == 2
    assert "::error::no GitHub token" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout
    assert result.github_requests == [] and result.model_requests == []


def test_invalid_input_is_one_clear_error(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    result = harness.run(
        "issue_comment",
        harness.comment_event(number, "/amelia plan"),
        inputs={"plan_dir": "../outside"},
    )

    assert result.exit_code == 2
    assert "::error::Invalid action input: INPUT_PLAN_DIR" in result.stdout
    assert "Traceback" not in result.stderr + result.stdout


def _error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("::error")]


@pytest.mark.parametrize("number", [-1, 0, 10**30])
def test_amelia_run_refuses_an_issue_number_github_never_sends_before_any_request(
    harness: ActionHarness, number: int
) -> None:
    harness.add_issue("Add a farewell", "Say goodbye.")
    event = harness.comment_event(1, "/amelia plan")
    event["issue"]["number"] = number

    result = harness.run_local("issue_comment", event, dry_run=False)

    output = result.stdout + result.stderr
    assert result.exit_code == 2, output
    (error,) = _error_lines(result.stdout)
    assert error.startswith("::error::issue_comment event payload is invalid: field 'issue.number'")
    assert "Traceback" not in output and "would create comment" not in output
    assert result.github_requests == [] and result.model_requests == []


@pytest.mark.parametrize("workspace", ["missing", "not a checkout", "a file"])
def test_amelia_run_refuses_a_repo_that_is_no_checkout_before_any_request(
    harness: ActionHarness, workspace: str
) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    path = harness.root / "elsewhere"
    if workspace == "not a checkout":
        path.mkdir()
    if workspace == "a file":
        path.write_text("not a repository\n", encoding="utf-8")
    event = harness.comment_event(number, "/amelia plan")
    events = harness.root / "event.json"
    events.write_text(json.dumps(event), encoding="utf-8")
    args = ["run", "--event-name", "issue_comment", "--event-path", str(events)]

    result = harness.run("issue_comment", event, args=[*args, "--repo", str(path)])

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
