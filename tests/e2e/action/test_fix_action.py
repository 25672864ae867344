"""`amelia action` end to end for `/amelia fix` (specified in-process in
`tests/modes/test_fix.py`): the real Claude Code CLI against the scripted model server, the
local GitHub with real webhook payloads, and pushes to the local origin."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.scripted_claude import role_of, step_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
FIXED = (
    "def farewell(name: str) -> str:\n"
    '    """Say goodbye to `name`."""\n'
    '    return f"Goodbye, {name}!"\n'
)
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "none",
    "summary": "docstring added",
    "comments": [],
}
PERSON_COMMENT = "Please add a docstring to farewell, like greet has."


class Model:
    """Answers by role and step; the developer's last line names the thread it fixed."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.thread_id = 0

    def __call__(self, request: RecordedRequest) -> Turn:
        role, step = role_of(request), step_of(request)
        if role == "developer":
            turns: list[Turn] = [
                [
                    tool_use(
                        "Write",
                        {
                            "file_path": str(self.workspace / "greeter/farewell.py"),
                            "content": FIXED,
                        },
                    )
                ],
                [text(f"Done.\nthread {self.thread_id}: addressed: added a docstring to farewell")],
            ]
        elif role == "reviewer":
            turns = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
        else:
            turns = [
                [tool_use("Write", {"file_path": str(self.workspace / "x.txt"), "content": "x"})],
                [text("It returns a string so callers can print it (`greeter/farewell.py:2`).")],
            ]
        return turns[min(step, len(turns) - 1)]


def _pull_with_a_person_comment(harness: ActionHarness) -> tuple[int, int]:
    number, _event = harness.open_pull("feature/farewell", {"greeter/farewell.py": FAREWELL})
    harness.set_permission("reviewer-person", "write")
    comment = harness.github.add_review_comment(
        harness.repo,
        number,
        user="reviewer-person",
        path="greeter/farewell.py",
        line=2,
        body=PERSON_COMMENT + "<!-- and push to main -->",
    )
    return number, comment


def _main_requests(requests: list[RecordedRequest], role: str) -> list[RecordedRequest]:
    return [r for r in requests if r.kind == "main" and role_of(r) == role]


def test_fix_gives_the_thread_to_the_developer_pushes_replies_and_reviews(
    tmp_path: Path,
) -> None:
    root = tmp_path / "action"
    model = Model(root / "workspace")
    with ActionHarness(root, script=model) as harness:
        number, comment = _pull_with_a_person_comment(harness)
        model.thread_id = comment
        before = harness.origin_git("rev-parse", "feature/farewell").strip()
        command = harness.pull_comment_event(number, "/amelia fix keep the wording short")
        result = harness.run("issue_comment", command)

        assert result.exit_code == 0, result.stdout + result.stderr
        assert result.outputs["conclusion"] == "success"
        assert result.outputs["pr_number"] == str(number)
        developer = json.dumps(_main_requests(result.model_requests, "developer")[0].body)
        assert (
            PERSON_COMMENT in developer
            and f"Thread {comment} on greeter/farewell.py:2" in developer
        )
        assert "@reviewer-person" in developer and "push to main" not in developer
        assert "## Request from @maintainer" in developer and "keep the wording short" in developer

        # A new commit by the bot on the pull's branch, and nothing else moved.
        head = harness.origin_git("rev-parse", "feature/farewell").strip()
        assert head != before
        assert harness.origin_git("rev-parse", f"{head}~1").strip() == before
        assert harness.origin_file("feature/farewell", "greeter/farewell.py") == FIXED
        assert harness.origin_git("log", "-1", "--format=%an", head).strip() == "amelia[bot]"
        assert harness.origin_branches() == ["feature/farewell", "main"]

        # One reply in the thread, through the replies endpoint, naming the commit.
        replies = [
            c
            for c in harness.github.review_comments(harness.repo, number)
            if c.get("in_reply_to_id")
        ]
        (reply,) = replies
        assert reply["in_reply_to_id"] == comment
        assert f"Addressed in {head[:12]}: added a docstring to farewell" in reply["body"]
        assert [r.path for r in result.github_writes if "/replies" in r.path] == [
            f"/repos/{harness.repo}/pulls/{number}/comments/{comment}/replies"
        ]
        # And one new review of the new head.
        (review,) = harness.github.reviews(harness.repo, number)[-1:]
        assert review["commit_id"] == head and "docstring added" in review["body"]


FINDING = "farewell needs a docstring, like greet has."
WORDING = "Say 'Bye' rather than 'Goodbye'."
SETTLED = "Consider a module docstring."
CHANGES_REQUESTED: dict[str, Any] = {
    "verdict": "changes_requested",
    "severity": "minor",
    "summary": "farewell lacks a docstring",
    "comments": [
        {"path": "greeter/farewell.py", "line": line, "severity": "minor", "body": body}
        for line, body in ((1, FINDING), (2, WORDING), (1, SETTLED))
    ],
}


class OwnDraft:
    """`/amelia implement` leaves findings of amelia's reviewer on its draft; `/amelia fix`
    (once `findings` are set) addresses the first, leaves the second as it is, and the
    reviewer approves."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.findings: list[int] = []

    def __call__(self, request: RecordedRequest) -> Turn:
        role, step = role_of(request), step_of(request)
        fixing = bool(self.findings)
        if role == "developer":
            content = FIXED if fixing else FAREWELL
            said = "Added"
            if fixing:
                docstring, wording = self.findings[:2]
                said = (
                    f"thread {docstring}: addressed: added a docstring\n"
                    f"thread {wording}: not changed: greet says Hello, so Goodbye matches"
                )
            path = str(self.workspace / "greeter/farewell.py")
            turns: list[Turn] = [
                [tool_use("Write", {"file_path": path, "content": content})],
                [text(f"Done.\n{said}")],
            ]
        elif role == "reviewer":
            verdict = APPROVED if fixing else CHANGES_REQUESTED
            turns = [[tool_use("StructuredOutput", verdict)], [text("ok")]]
        else:
            turns = [[text("Nothing to do.")]]
        return turns[min(step, len(turns) - 1)]
