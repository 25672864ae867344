"""GitHub's `pull_request` `synchronize` event, run in-process: after a first review at
commit A, a push is reviewed for what it changed, a force-push is reviewed whole, a finding
still open is never posted twice, and an open blocking finding holds every approval back."""

from __future__ import annotations

from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, ActionRun, plan_agents
from amelia.testing.scripted_agents import AgentTurn, final_result, say

A_CHANGE = (
    "\n\ndef farewell(name: str) -> str:\n"
    '    """Return a goodbye for `name`."""\n'
    '    return f"Bye, {name}!"\n'
)
A_CHANGED_LINE = 'return f\\"Bye, {name}!\\"'
"""A's change as it appears inside a JSON request body."""
B_CHANGE = 'def shout(name: str) -> str:\n    return f"HEY, {name.upper()}!"\n'
C_CHANGE = '\n\ndef farewell_twice(name: str) -> str:\n    return f"Goodbye, {name}!" * 2\n'
FINDING_TEXT = "Say Goodbye, like greet says Hello"
FINDING: dict[str, Any] = {
    "path": "greeter/core.py",
    "line": 11,
    "severity": "major",
    "body": FINDING_TEXT,
}


def verdict(
    answer: str = "changes_requested", comments: tuple[dict[str, Any], ...] = ()
) -> dict[str, Any]:
    return {"verdict": answer, "summary": f"reviewer says {answer}", "comments": list(comments)}


class Reviewer:
    """The scripted reviewer: answers whatever verdict the test set for the next run."""

    def __init__(self) -> None:
        self.next: dict[str, Any] = verdict(comments=(FINDING,))

    def answer(self, _messages: object) -> list[Any]:
        return [final_result(**self.next)]


@pytest.fixture
def reviewer(action: ActionHarness) -> Reviewer:
    scripted = Reviewer()
    turns: list[AgentTurn] = [scripted.answer, [say("ok")]]
    action.agents = plan_agents(roles={"reviewer": turns})
    return scripted


def prompt_of(result: ActionRun) -> str:
    """The reviewer's first request of the run, as JSON text."""
    (first,) = [r for r in result.agent_requests if r.role == "reviewer" and r.step == 0]
    return first.as_json()


def posted_reviews(action: ActionHarness, number: int) -> list[dict[str, Any]]:
    """The pull's reviews but the empty ones GitHub files replies under."""
    return [r for r in action.github.reviews(action.repo, number) if r["body"]]


def ok(result: ActionRun) -> ActionRun:
    assert result.exit_code == 0, result.stdout + result.stderr
    return result


def test_a_push_is_reviewed_for_what_it_changed(action: ActionHarness, reviewer: Reviewer) -> None:
    number, opened = action.open_pull("feature", {"greeter/core.py": A_CHANGE})
    a = opened["pull_request"]["head"]["sha"]
    base = opened["pull_request"]["base"]["sha"]
    first = ok(action.run_in_process("pull_request", opened))
    assert A_CHANGED_LINE in prompt_of(first)

    b, pushed = action.push_to_pull(number, "feature", {"greeter/shout.py": B_CHANGE})
    shout = {"path": "greeter/shout.py", "line": 2, "severity": "minor", "body": "Shout less"}
    reviewer.next = verdict(comments=(FINDING, shout))  # repeats the open finding
    second = ok(action.run_in_process("pull_request", pushed))

    prompt = prompt_of(second)
    assert "def shout" in prompt and A_CHANGED_LINE not in prompt
    assert "greeter/core.py" in prompt  # the pull's files, for context
    assert FINDING_TEXT in prompt  # the finding still open
    reviews = posted_reviews(action, number)
    assert f"Reviewed {base[:12]}..{a[:12]} (full)" in reviews[0]["body"]
    assert f"Reviewed {a[:12]}..{b[:12]} (incremental)" in reviews[1]["body"]
    # The open finding is not posted again; the body links it instead.
    assert [c["path"] for c in reviews[1]["comments"]] == ["greeter/shout.py"]
    posted = action.github.review_comments(action.repo, number)
    assert [c["body"] for c in posted].count(f"**major**: {FINDING_TEXT}") == 1
    first_finding = next(c for c in posted if c["path"] == "greeter/core.py")
    assert "**Earlier findings:** 1 still open" in reviews[1]["body"]
    assert first_finding["html_url"] in reviews[1]["body"]


def test_a_force_push_gets_a_full_review(action: ActionHarness, reviewer: Reviewer) -> None:
    number, opened = action.open_pull("feature", {"greeter/core.py": A_CHANGE})
    base = opened["pull_request"]["base"]["sha"]
    ok(action.run_in_process("pull_request", opened))

    rewritten, pushed = action.push_to_pull(
        number, "feature", {"greeter/shout.py": B_CHANGE}, force=True
    )
    reviewer.next = verdict("approved")
    result = ok(action.run_in_process("pull_request", pushed))

    prompt = prompt_of(result)
    assert "def shout" in prompt and "Earlier findings still open" not in prompt
    review = posted_reviews(action, number)[-1]
    assert f"Reviewed {base[:12]}..{rewritten[:12]} (full)" in review["body"]


def test_an_incremental_review_never_approves_while_a_blocking_finding_is_open(
    action: ActionHarness, reviewer: Reviewer
) -> None:
    auto = {"review_event": "AUTO"}
    action.set_permission("octocat", "write")  # the author the local GitHub gives the pull
    number, opened = action.open_pull("feature", {"greeter/core.py": A_CHANGE})
    ok(action.run_in_process("pull_request", opened, inputs=auto))
    (finding,) = action.github.review_comments(action.repo, number)

    # B leaves the major finding alone; the reviewer approves the increment.
    _b, pushed = action.push_to_pull(number, "feature", {"greeter/shout.py": B_CHANGE})
    reviewer.next = verdict("approved")
    held = ok(action.run_in_process("pull_request", pushed, inputs=auto))
    assert held.outputs["verdict"] == "changes_requested"
    review = posted_reviews(action, number)[-1]
    assert review["state"] == "CHANGES_REQUESTED"
    assert "Not approved: 1 earlier finding(s) of severity major" in review["body"]

    # C changes the finding's lines and the reviewer says it fixed it: now it approves.
    head, pushed = action.push_to_pull(number, "feature", {"greeter/core.py": C_CHANGE})
    reviewer.next = {**verdict("approved"), "fixed": [finding["id"]]}
    fixed = ok(action.run_in_process("pull_request", pushed, inputs=auto))
    assert fixed.outputs["verdict"] == "approved"
    assert posted_reviews(action, number)[-1]["state"] == "APPROVED"
    replies = [
        comment["body"]
        for comment in action.github.review_comments(action.repo, number)
        if comment.get("in_reply_to_id") == finding["id"]
    ]
    assert len(replies) == 1 and replies[0].endswith(f"Fixed in {head}")
    (thread,) = action.github.threads(action.repo, number)
    assert thread["isResolved"]


def test_review_incremental_on_request_and_a_thread_it_may_not_resolve(
    action: ActionHarness, reviewer: Reviewer
) -> None:
    number, opened = action.open_pull("feature", {"greeter/core.py": A_CHANGE})
    a = opened["pull_request"]["head"]["sha"]
    ok(action.run_in_process("pull_request", opened))
    (finding,) = action.github.review_comments(action.repo, number)

    # C is pushed without a review of its own; a maintainer asks for an incremental one, and
    # the token may not resolve review threads.
    c, _pushed = action.push_to_pull(number, "feature", {"greeter/core.py": C_CHANGE})
    action.github.forbid_resolving = True
    reviewer.next = {**verdict("approved"), "fixed": [finding["id"]]}
    command = action.pull_comment_event(number, "/amelia review incremental")
    result = ok(action.run_in_process("issue_comment", command))

    prompt = prompt_of(result)
    # C's lines added, A's only as the hunk's context lines.
    assert "+def farewell_twice" in prompt and f"+    {A_CHANGED_LINE}" not in prompt
    assert f"\\n     {A_CHANGED_LINE}" in prompt
    assert result.outputs["conclusion"] == "success" and result.outputs["verdict"] == "approved"
    review = posted_reviews(action, number)[-1]
    assert f"Reviewed {a[:12]}..{c[:12]} (incremental)" in review["body"]
    replies = [
        comment["body"]
        for comment in action.github.review_comments(action.repo, number)
        if comment.get("in_reply_to_id") == finding["id"]
    ]
    assert len(replies) == 1 and replies[0].endswith(f"Fixed in {c}")
    (thread,) = action.github.threads(action.repo, number)
    assert not thread["isResolved"]
    (warning,) = [line for line in result.stdout.splitlines() if "could not resolve" in line]
    assert warning.startswith("::warning::") and "Resource not accessible" in warning
