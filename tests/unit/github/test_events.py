from __future__ import annotations

import json
from typing import Any

import pytest

from amelia.errors import EventError
from amelia.github.events import (
    Command,
    IssueCommentEvent,
    OtherEvent,
    PullRequestEvent,
    RoutingSettings,
    parse_event,
    route,
)

SETTINGS = RoutingSettings()
USER = {"login": "alice", "type": "User", "id": 1, "site_admin": False}
REPO = {"full_name": "octo/app", "default_branch": "main", "private": False}


def comment_payload(
    body: str, action: str = "created", on_pull: bool = False, user: dict[str, Any] = USER
) -> bytes:
    issue: dict[str, Any] = {"number": 7, "title": "Crash", "body": "trace", "user": USER}
    if on_pull:
        issue["pull_request"] = {"url": "https://api.github.com/repos/octo/app/pulls/7"}
    return json.dumps(
        {
            "action": action,
            "issue": issue,
            "comment": {"id": 99, "body": body, "user": user, "extra": [1, 2]},
            "sender": user,
            "repository": REPO,
            "installation": {"id": 5},
        }
    ).encode()


def routed(name: str, payload: bytes, settings: RoutingSettings = SETTINGS) -> Command:
    return route(parse_event(name, payload), settings)


@pytest.mark.parametrize("word", ["plan", "implement", "PLAN"])
def test_issue_comment_commands(word: str) -> None:
    command = routed("issue_comment", comment_payload(f"  /amelia {word} keep it small\nplease"))
    assert command.kind == word.lower()
    assert command.number == 7
    assert command.requested_by == "alice"
    assert command.comment_id == 99
    assert command.instructions == "keep it small\nplease"


def test_review_command_on_pull_request() -> None:
    command = routed("issue_comment", comment_payload("/amelia review", on_pull=True))
    assert command.kind == "review" and command.number == 7


def test_review_on_issue_and_plan_on_pull_reply_with_where_they_work() -> None:
    on_issue = routed("issue_comment", comment_payload("/amelia review"))
    assert on_issue.kind == "unknown-command"
    assert "works on pull requests" in on_issue.reply
    on_pull = routed("issue_comment", comment_payload("/amelia plan", on_pull=True))
    assert on_pull.kind == "unknown-command" and "works on issues" in on_pull.reply


@pytest.mark.parametrize("on_pull", [False, True])
def test_ask_carries_its_question_on_issues_and_pulls(on_pull: bool) -> None:
    command = routed("issue_comment", comment_payload("/amelia ask why a cache?", on_pull=on_pull))
    assert command.kind == "ask" and command.number == 7
    assert command.instructions == "why a cache?" and command.requested_by == "alice"


def test_fix_works_on_pull_requests_only() -> None:
    command = routed("issue_comment", comment_payload("/amelia fix be brief", on_pull=True))
    assert command.kind == "fix" and command.instructions == "be brief"
    assert command.reply_to is None
    on_issue = routed("issue_comment", comment_payload("/amelia fix"))
    assert on_issue.kind == "unknown-command" and "works on pull requests" in on_issue.reply


def review_comment_payload(
    body: str, *, action: str = "created", user: dict[str, Any] = USER, reply_to: int | None = 41
) -> bytes:
    pull = {
        "number": 8,
        "title": "Add farewell",
        "user": USER,
        "head": {"ref": "feature", "sha": "a" * 40, "repo": REPO},
        "base": {"ref": "main", "sha": "b" * 40, "repo": REPO},
    }
    comment = {
        "id": 42,
        "body": body,
        "user": user,
        "path": "app.py",
        "line": 3,
        "original_line": 3,
        "diff_hunk": "@@ -1,2 +1,3 @@",
        "commit_id": "a" * 40,
        "pull_request_review_id": 7,
        "in_reply_to_id": reply_to,
    }
    return json.dumps(
        {
            "action": action,
            "comment": comment,
            "pull_request": pull,
            "sender": user,
            "repository": REPO,
        }
    ).encode()


@pytest.mark.parametrize(
    ("body", "kind", "instructions"),
    [
        ("/amelia fix use a constant", "fix", "use a constant"),
        ("/amelia why a loop here?", "ask", "why a loop here?"),
        ("/amelia ask why a loop?", "ask", "why a loop?"),
        ("/amelia review", "review", ""),
        ("/amelia", "help", ""),
    ],
)
def test_review_comments_route_to_their_thread(body: str, kind: str, instructions: str) -> None:
    command = routed("pull_request_review_comment", review_comment_payload(body))
    assert (command.kind, command.instructions) == (kind, instructions)
    assert command.number == 8 and command.requested_by == "alice"
    assert command.comment_id == 42 and command.reply_to == 41
    first = routed("pull_request_review_comment", review_comment_payload(body, reply_to=None))
    assert first.reply_to == 42  # the comment starts its own thread


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (review_comment_payload("/amelia fix", action="edited"), "only new ones"),
        (review_comment_payload("looks odd"), "not a command"),
        (review_comment_payload("> /amelia fix\n\nshould we?"), "not a command"),
        (review_comment_payload("    /amelia fix"), "code block"),
        (review_comment_payload("/amelia fix <!-- amelia:answer -->"), "written by amelia"),
        (
            review_comment_payload("/amelia fix", user={"login": "ci[bot]", "type": "Bot"}),
            "is a bot",
        ),
    ],
)
def test_review_comments_that_are_no_command_are_ignored(payload: bytes, reason: str) -> None:
    command = routed("pull_request_review_comment", payload)
    assert command.kind == "ignore" and reason in command.reason


def test_ask_without_a_question_says_what_it_needs() -> None:
    command = routed("issue_comment", comment_payload("/amelia ask  "))
    assert command.kind == "unknown-command"
    assert command.reply.startswith("`/amelia ask` needs a question")


def test_help_and_unknown_commands_list_every_command() -> None:
    help_command = routed("issue_comment", comment_payload("/amelia help"))
    unknown = routed("issue_comment", comment_payload("/amelia deploy now"))
    assert help_command.kind == "help"
    assert unknown.kind == "unknown-command"
    assert "`/amelia deploy`" in unknown.reply
    for reply in (help_command.reply, unknown.reply):
        for name in ("plan", "implement", "review", "ask", "fix", "help"):
            assert f"`/amelia {name}`" in reply


def test_custom_trigger_phrase() -> None:
    settings = RoutingSettings(trigger_phrase="@bot")
    assert routed("issue_comment", comment_payload("@bot plan"), settings).kind == "plan"
    assert routed("issue_comment", comment_payload("/amelia plan"), settings).kind == "ignore"


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (comment_payload("/amelia plan", action="edited"), "edited"),
        (comment_payload("/amelia plan", action="deleted"), "deleted"),
        (comment_payload("please /amelia plan"), "not a command"),
        (comment_payload("> /amelia implement\n\nShould I?"), "not a command"),
        (comment_payload(">/amelia implement"), "not a command"),
        (comment_payload("```\n/amelia implement\n```"), "not a command"),
        (comment_payload("`/amelia implement` opens a draft"), "not a command"),
        (comment_payload("    /amelia implement\n\nopens a draft"), "code block"),
        (comment_payload("\n\t/amelia implement"), "code block"),
        (comment_payload("/amelia plan <!-- amelia:progress issue=7 -->"), "written by amelia"),
        (comment_payload("/amelia plan", user={"login": "ci", "type": "Bot"}), "bot"),
        (comment_payload("/amelia plan", user={"login": "renovate[bot]"}), "bot"),
    ],
)
def test_ignored_comments(payload: bytes, reason: str) -> None:
    command = routed("issue_comment", payload)
    assert command.kind == "ignore"
    assert reason in command.reason


def test_a_command_after_up_to_three_spaces_is_still_one() -> None:
    # Markdown shows one to three spaces of indentation as an ordinary paragraph.
    assert routed("issue_comment", comment_payload("   /amelia implement")).kind == "implement"
    assert routed("issue_comment", comment_payload("\n/amelia plan keep it")).kind == "plan"


def issues_payload(action: str, label: str, sender: dict[str, Any] = USER) -> bytes:
    issue = {"number": 3, "title": "t", "body": None, "user": USER, "labels": [{"name": label}]}
    return json.dumps(
        {"action": action, "issue": issue, "label": {"name": label}, "sender": sender}
    ).encode()


def test_label_trigger_plans() -> None:
    assert routed("issues", issues_payload("labeled", "Amelia")) == Command(
        kind="plan", number=3, requested_by="alice"
    )
    assert routed("issues", issues_payload("labeled", "bug")).kind == "ignore"
    assert routed("issues", issues_payload("opened", "amelia")).kind == "ignore"
    no_label = RoutingSettings(label_trigger=None)
    assert routed("issues", issues_payload("labeled", "amelia"), no_label).kind == "ignore"
    bot = {"login": "github-actions[bot]", "type": "Bot"}
    assert routed("issues", issues_payload("labeled", "amelia", bot)).kind == "ignore"


def pull_payload(
    action: str, draft: bool = False, head_repo: dict[str, Any] | None = REPO
) -> bytes:
    pull = {
        "number": 12,
        "draft": draft,
        "title": "Feature",
        "user": USER,
        "head": {"ref": "feature", "sha": "a" * 40, "repo": head_repo},
        "base": {"ref": "main", "sha": "b" * 40, "repo": REPO},
    }
    event = {
        "action": action,
        "number": 12,
        "pull_request": pull,
        "sender": USER,
        "repository": REPO,
    }
    return json.dumps(event).encode()


FORK = {"full_name": "newcomer/app", "fork": True}
WITH_FORKS = RoutingSettings(review_forks=True)


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review"])
def test_pull_request_actions_review(action: str) -> None:
    command = routed("pull_request", pull_payload(action))
    assert command.kind == "review" and command.number == 12


def test_pull_request_drafts_closed_and_disabled_are_ignored() -> None:
    assert routed("pull_request", pull_payload("opened", draft=True)).reason == (
        "pull request is a draft"
    )
    with_drafts = RoutingSettings(review_drafts=True)
    assert routed("pull_request", pull_payload("opened", draft=True), with_drafts).kind == "review"
    assert routed("pull_request", pull_payload("closed")).kind == "ignore"
    off = RoutingSettings(review_pull_requests=False)
    assert routed("pull_request", pull_payload("opened"), off).kind == "ignore"


@pytest.mark.parametrize("action", ["opened", "synchronize", "reopened", "ready_for_review"])
def test_pull_request_target_reviews_only_with_review_forks(action: str) -> None:
    event = parse_event("pull_request_target", pull_payload(action, head_repo=FORK))
    assert isinstance(event, PullRequestEvent)
    assert event.is_target and event.from_fork
    off = route(event, SETTINGS)
    assert off.kind == "ignore"
    assert "review_forks: true" in off.reason and "secrets" in off.reason
    on = route(event, WITH_FORKS)
    assert (on.kind, on.number, on.requested_by) == ("review", 12, "alice")


def test_pull_request_target_follows_the_pull_request_rules() -> None:
    def target(payload: bytes, settings: RoutingSettings = WITH_FORKS) -> Command:
        return routed("pull_request_target", payload, settings)

    assert target(pull_payload("opened", draft=True)).reason == "pull request is a draft"
    drafts = RoutingSettings(review_forks=True, review_drafts=True)
    assert target(pull_payload("opened", draft=True), drafts).kind == "review"
    assert target(pull_payload("closed")).reason == "pull_request_target closed needs no review"
    off = RoutingSettings(review_forks=True, review_pull_requests=False)
    assert target(pull_payload("opened"), off).kind == "ignore"
    # A bot's pull request: whatever pull_request does with it, pull_request_target does.
    bot = json.loads(pull_payload("opened", head_repo=FORK))
    bot["sender"] = bot["pull_request"]["user"] = {"login": "dependabot[bot]", "type": "Bot"}
    payload = json.dumps(bot).encode()
    assert target(payload) == routed("pull_request", payload, WITH_FORKS)


@pytest.mark.parametrize(
    ("head_repo", "fork"),
    [(REPO, False), ({"full_name": "OCTO/App"}, False), (FORK, True), (None, True)],
)
def test_a_pull_from_another_or_a_deleted_repository_is_from_a_fork(
    head_repo: dict[str, Any] | None, fork: bool
) -> None:
    event = parse_event("pull_request", pull_payload("opened", head_repo=head_repo))
    assert isinstance(event, PullRequestEvent)
    assert event.from_fork is fork and not event.is_target


def test_workflow_dispatch_inputs() -> None:
    def dispatch(inputs: dict[str, Any] | None) -> Command:
        return routed("workflow_dispatch", json.dumps({"inputs": inputs, "sender": USER}).encode())

    assert dispatch({"issue_number": "5", "command": "Implement"}) == Command(
        kind="implement", number=5, requested_by="alice"
    )
    assert dispatch({"issue_number": "5", "command": ""}).kind == "plan"
    assert dispatch({"issue_number": "", "command": ""}).kind == "scan"
    assert dispatch(None).kind == "scan"
    assert dispatch({"command": "review"}).kind == "ignore"
    with pytest.raises(EventError, match=r"inputs\.issue_number"):
        dispatch({"issue_number": "five"})
    with pytest.raises(EventError, match=r"inputs\.command"):
        dispatch({"issue_number": "5", "command": "deploy"})


def test_schedule_scans_and_other_events_are_ignored() -> None:
    assert routed("schedule", b'{"schedule": "0 * * * *"}').kind == "scan"
    push = parse_event("push", b'{"ref": "refs/heads/main"}')
    assert isinstance(push, OtherEvent)
    assert route(push, SETTINGS) == Command(kind="ignore", reason="nothing to do")


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        (b"{not json", "not valid JSON"),
        (b"[1, 2]", "must be a JSON object"),
        (b'{"action": "created", "issue": {"number": "seven"}}', "field 'issue.number'"),
        (b'{"action": "created", "issue": {"number": 1}}', "field 'comment'"),
        (b"\xff\xfe", "not valid JSON"),
    ],
)
def test_malformed_payloads_raise_event_error(payload: bytes, message: str) -> None:
    with pytest.raises(EventError, match=message) as caught:
        parse_event("issue_comment", payload)
    assert "\n" not in str(caught.value)


def _with(payload: bytes, **changes: Any) -> bytes:
    data = json.loads(payload)
    for dotted, value in changes.items():
        *parents, last = dotted.split("__")
        target = data
        for part in parents:
            target = target[part]
        target[last] = value
    return json.dumps(data).encode()


@pytest.mark.parametrize("number", [-1, 0, 10**30, 2**31, "7", True, 7.5, None])
def test_an_issue_number_github_never_sends_is_refused_before_any_request(number: Any) -> None:
    with pytest.raises(EventError, match=r"field 'issue\.number'") as caught:
        parse_event("issue_comment", _with(comment_payload("/amelia plan"), issue__number=number))
    assert "\n" not in caught.value.message
    with pytest.raises(EventError, match=r"field 'issue\.number'"):
        parse_event("issues", _with(issues_payload("labeled", "amelia"), issue__number=number))


@pytest.mark.parametrize("number", [-1, 0, 10**30])
def test_a_pull_request_number_github_never_sends_is_refused(number: Any) -> None:
    with pytest.raises(EventError, match=r"field 'number'"):
        parse_event("pull_request", _with(pull_payload("opened"), number=number))
    payload = _with(pull_payload("opened"), pull_request__number=number)
    with pytest.raises(EventError, match=r"field 'pull_request\.number'"):
        parse_event("pull_request_target", payload)
    with pytest.raises(EventError, match=r"field 'pull_request\.number'"):
        parse_event(
            "pull_request_review_comment",
            _with(review_comment_payload("/amelia fix"), pull_request__number=number),
        )


@pytest.mark.parametrize("value", ["-1", "0", str(10**30)])
def test_a_dispatched_issue_number_must_be_one_github_could_have(value: str) -> None:
    payload = json.dumps({"inputs": {"issue_number": value, "command": "plan"}, "sender": USER})
    with pytest.raises(EventError, match=r"field 'inputs\.issue_number'"):
        parse_event("workflow_dispatch", payload.encode())


def test_real_numbers_and_ids_pass_the_bounds() -> None:
    # Comment ids outgrew 32 bits long ago; issue numbers stay far below that.
    payload = _with(comment_payload("/amelia plan"), issue__number=123456, comment__id=2862319443)
    assert routed("issue_comment", payload) == Command(
        kind="plan", number=123456, requested_by="alice", comment_id=2862319443
    )
    thread = _with(
        review_comment_payload("/amelia fix", reply_to=2862319443),
        comment__id=2862319999,
    )
    assert routed("pull_request_review_comment", thread).reply_to == 2862319443


def test_extra_fields_are_tolerated() -> None:
    event = parse_event("issue_comment", comment_payload("/amelia plan"))
    assert isinstance(event, IssueCommentEvent)
    assert event.repository is not None and event.repository.full_name == "octo/app"
