from __future__ import annotations

import json

from amelia.core.state import ReviewComment, ReviewResult, ToolResult
from amelia.github.comments import (
    ProgressComment,
    ProgressReport,
    Stage,
    build_review,
    commentable_lines,
    link_references,
    render_answer,
    render_help,
    render_progress,
    render_reply,
    render_tool_errors,
)
from amelia.github.events import IssueCommentEvent, RoutingSettings, parse_event, route
from amelia.github.markers import marker
from amelia.github.models import CommentInfo
from amelia.redaction import Redactor
from amelia.testing.github import GitHubState, InMemoryGitHub

TOKEN = "ghp_" + "Z" * 36
REDACTOR = Redactor(secrets=["hunter2-secret"])
DIFF = "\n".join(
    [
        "diff --git a/src/app.py b/src/app.py",
        "index 1111111..2222222 100644",
        "--- a/src/app.py",
        "+++ b/src/app.py",
        "@@ -10,4 +10,5 @@ def main():",
        "     a = 1",
        "-    b = 2",
        "+    b = 3",
        "+    c = 4",
        "     return a",
        " ",
        "diff --git a/old.txt b/old.txt",
        "deleted file mode 100644",
        "index 3333333..0000000",
        "--- a/old.txt",
        "+++ /dev/null",
        "@@ -1 +0,0 @@",
        "-gone",
        "",
    ]
)


def test_commentable_lines_are_added_and_context_lines_of_the_new_side() -> None:
    assert commentable_lines(DIFF) == {"src/app.py": {10, 11, 12, 13, 14}}


def test_build_review_keeps_inline_only_inside_hunks() -> None:
    result = ReviewResult(
        verdict="changes_requested",
        severity="major",
        summary=f"Two problems. Token {TOKEN} leaked.",
        comments=(
            ReviewComment(path="src/app.py", line=11, severity="major", body="b changed"),
            ReviewComment(
                path="src/app.py", line=12, severity="minor", body="use c", suggestion="    c = 5"
            ),
            ReviewComment(path="src/app.py", line=40, severity="critical", body="far away"),
            ReviewComment(path="README.md", severity="minor", body="document it"),
        ),
    )
    body, inline = build_review(result, DIFF, "abcdef0123456789", redactor=REDACTOR)
    assert [(c.path, c.line, c.side) for c in inline] == [
        ("src/app.py", 11, "RIGHT"),
        ("src/app.py", 12, "RIGHT"),
    ]
    assert inline[1].body == "**minor**: use c\n\n```suggestion\n    c = 5\n```"
    assert body.startswith("<!-- amelia:review commit=abcdef0123456789 -->\n")
    assert "Changes requested" in body and "**Severity:** major" in body
    assert "**Findings:** 4 (1 critical, 1 major, 2 minor); 2 inline, 2 listed below." in body
    assert "`abcdef012345`" in body
    assert "- `src/app.py:40` **critical**: far away" in body
    assert "- `README.md` **minor**: document it" in body
    assert TOKEN not in body


def test_suggestion_with_backticks_gets_a_longer_fence() -> None:
    comment = ReviewComment(path="src/app.py", line=10, body="x", suggestion="```py\nx\n```")
    result = ReviewResult(verdict="approved", summary="ok", comments=(comment,))
    _, inline = build_review(result, DIFF, "a" * 40)
    assert "````suggestion\n```py\nx\n```\n````" in inline[0].body


def test_progress_comment_rendering() -> None:
    report = ProgressReport(
        issue_number=7,
        command="plan",
        requested_by="alice",
        run_url="https://github.com/o/r/actions/runs/1",
        stages=(
            Stage(name="Plan", status="done"),
            Stage(name="Implement", status="failed", detail="pytest failed"),
            Stage(name="Review", status="skipped"),
        ),
        outcome="failed",
        duration_seconds=125,
        cost_usd=0.4321,
        failure_reason=f"developer crashed\nwith {TOKEN} and hunter2-secret",
        links=(("Plan", "https://github.com/o/r/blob/b/plan.md"),),
    )
    text = render_progress(report, REDACTOR)
    assert text.startswith("<!-- amelia:progress issue=7 -->\n### amelia: `plan` for @alice")
    assert "- ✅ Plan\n- ❌ Implement: pytest failed\n- ➖ Review" in text
    assert (
        "**Failed** (took 2m 05s, cost $0.43): developer crashed with *** and ***. "
        "See [the log](https://github.com/o/r/actions/runs/1)."
    ) in text
    assert "- [Plan](https://github.com/o/r/blob/b/plan.md)" in text


def test_a_failure_reason_ending_in_a_full_stop_gets_no_second_one() -> None:
    reason = (
        "push declined: GH013: Repository rule violations found. Set the branch_prefix "
        "input to a prefix no rule covers."
    )
    report = ProgressReport(
        issue_number=7,
        command="implement",
        requested_by="alice",
        run_url="https://github.com/o/r/actions/runs/1",
        outcome="failed",
        failure_reason=reason,
    )

    text = render_progress(report, REDACTOR)

    assert f"**Failed**: {reason} See [the log]" in text
    assert ".." not in text


def test_help_and_replies_are_marked_so_routing_ignores_them() -> None:
    for body in (render_help("/amelia"), render_reply("/amelia plan is not allowed", REDACTOR)):
        comment = {"id": 1, "body": body, "user": {"login": "alice"}}
        payload = json.dumps({"action": "created", "issue": {"number": 1}, "comment": comment})
        event = parse_event("issue_comment", payload)
        assert isinstance(event, IssueCommentEvent)
        assert route(event, RoutingSettings()).kind == "ignore"
    assert "`/amelia implement`" in render_help("/amelia")


def test_tool_errors_are_collapsed_truncated_and_redacted() -> None:
    results = [
        ToolResult(agent="developer", tool_name="Bash", output="ok"),
        ToolResult(
            agent="developer",
            tool_name="Bash",
            output="E" * 70 + f" {TOKEN}",
            is_error=True,
            tool_input={"command": "curl -H 'Authorization: Bearer abcdefghijkl' x"},
        ),
        ToolResult(agent="reviewer", tool_name="<Write>", output="```\nno\n```", is_error=True),
    ]
    text = render_tool_errors(results, REDACTOR, max_output=60)
    assert text is not None
    assert text.count("<details>") == 2
    assert "<summary>developer: Bash</summary>" in text
    assert "<summary>reviewer: &lt;Write&gt;</summary>" in text
    assert "Bearer ***" in text and TOKEN not in text and "abcdefghijkl" not in text
    assert "more characters)" in text
    assert "````\n```\nno\n```\n````" in text
    assert render_tool_errors(results[:1], REDACTOR) is None


REPO = "octo/app"


class CountingGitHub(InMemoryGitHub):
    """The in-memory GitHub, counting the comments written (made or edited)."""

    writes = 0

    async def create_comment(self, issue_number: int, body: str) -> CommentInfo:
        self.writes += 1
        return await super().create_comment(issue_number, body)

    async def edit_comment(self, comment_id: int, body: str) -> CommentInfo:
        self.writes += 1
        return await super().edit_comment(comment_id, body)


def _github() -> CountingGitHub:
    """A repository with issues #1 to #7."""
    state = GitHubState()
    state.add_repo(REPO)
    for number in range(1, 8):
        state.add_issue(REPO, f"issue {number}")
    return CountingGitHub(state, REPO)


def _comments(github: InMemoryGitHub, number: int) -> dict[int, str]:
    return {c.id: c.body for c in github.state.issue_comments(REPO, number)}


async def test_progress_comment_throttles_edits_and_always_sends_final() -> None:
    now = [0.0]
    github = _github()
    progress = ProgressComment(github, 7, min_interval=10, clock=lambda: now[0])
    assert await progress.publish("step 1")
    now[0] = 3
    assert not await progress.publish("step 2")
    assert not await progress.publish("step 2")
    now[0] = 11
    assert await progress.publish("step 3")
    now[0] = 12
    assert not await progress.publish("step 4")
    assert await progress.flush()
    assert not await progress.flush()
    now[0] = 13
    assert await progress.publish("done", final=True)
    assert github.writes == 4
    assert list(_comments(github, 7).values()) == ["<!-- amelia:progress issue=7 -->\ndone"]


async def test_progress_comment_reuses_a_comment_of_an_earlier_run() -> None:
    github = _github()
    earlier = github.state.create_comment(
        REPO, 7, "<!-- amelia:progress issue=7 -->\nold", author="b"
    )
    await ProgressComment(github, 7).publish("new")
    assert _comments(github, 7) == {earlier.id: "<!-- amelia:progress issue=7 -->\nnew"}


def test_huge_tool_error_lists_stay_under_githubs_comment_limit() -> None:
    results = [
        ToolResult(agent="developer", tool_name="Bash", output="x" * 5000, is_error=True)
        for _ in range(100)
    ]
    text = render_tool_errors(results, REDACTOR, max_output=4000)
    assert text is not None
    assert len(text) < 65_536
    assert "more not shown; see the workflow log." in text


def test_huge_reviews_stay_under_githubs_comment_limit() -> None:
    comments = tuple(ReviewComment(path=f"f{n}.py", line=1, body="y" * 3000) for n in range(100))
    result = ReviewResult(verdict="changes_requested", summary="many", comments=comments)
    body, inline = build_review(result, DIFF, "a" * 40)
    assert inline == []
    assert len(body) < 65_536
    assert "more findings not shown" in body


def test_references_become_links_only_to_files_that_exist() -> None:
    known = {"src/app.py"}

    def url_of(path: str, start: int, end: int | None) -> str | None:
        suffix = f"#L{start}-L{end}" if end else f"#L{start}"
        return f"https://x/blob/abc/{path}{suffix}" if path in known else None

    text = "See `src/app.py:3`, `src/app.py:3-9` and `gone.py:1`; not src/app.py:4."
    assert link_references(text, url_of) == (
        "See [`src/app.py:3`](https://x/blob/abc/src/app.py#L3), "
        "[`src/app.py:3-9`](https://x/blob/abc/src/app.py#L3-L9) and `gone.py:1`; "
        "not src/app.py:4."
    )


def test_an_answer_is_redacted_and_names_who_asked() -> None:
    body = render_answer("the key is hunter2-secret", "alice", REDACTOR)
    assert body.startswith(marker("answer")) and "@alice the key is ***" in body
    assert "hunter2-secret" not in body
