"""A reviewer's verdict, rendered by build_review, is accepted by GitHub's diff validation."""

from __future__ import annotations

from amelia.action.modes._verdicts import choose_review_event
from amelia.core.state import ReviewComment, ReviewResult
from amelia.github.client import GitHubClient
from amelia.github.comments import ProgressComment, build_review
from amelia.github.options import RetryPolicy
from amelia.testing.github_server import FakeGitHubServer

DIFF = "\n".join(
    [
        "diff --git a/calc.py b/calc.py",
        "index 1111111..2222222 100644",
        "--- a/calc.py",
        "+++ b/calc.py",
        "@@ -1,2 +1,3 @@",
        " def add(a, b):",
        "-    return a - b",
        "+    return a + b",
        "+",
        "",
    ]
)


async def test_review_with_findings_inside_and_outside_the_diff_is_accepted() -> None:
    with FakeGitHubServer() as server:
        server.add_repo("octo/app", branches=("main", "fix"))
        number = server.add_pull("octo/app", head="fix", diff=DIFF, head_sha="c" * 40)
        client = GitHubClient(
            "t", "octo/app", base_url=server.url, policy=RetryPolicy(max_attempts=1), throttle=False
        )
        result = ReviewResult(
            verdict="changes_requested",
            severity="minor",
            summary="Almost.",
            comments=(
                ReviewComment(
                    path="calc.py", line=2, body="add a test", suggestion="    return b + a"
                ),
                ReviewComment(path="calc.py", line=30, body="not in the diff"),
            ),
        )
        diff = await client.get_pull_diff(number)
        assert diff is not None
        body, inline = build_review(result, diff, "c" * 40)
        review = await client.create_review(
            number,
            body,
            choose_review_event(result, "COMMENT"),
            comments=inline,
            commit_id="c" * 40,
        )
        assert review.state == "COMMENTED"
        posted = server.reviews("octo/app", number)[0]
        assert [(c["path"], c["line"], c["side"]) for c in posted["comments"]] == [
            ("calc.py", 2, "RIGHT")
        ]
        assert "```suggestion\n    return b + a\n```" in posted["comments"][0]["body"]
        assert "`calc.py:30`" in posted["body"]


async def test_progress_comment_against_the_server_reuses_one_comment() -> None:
    with FakeGitHubServer() as server:
        server.add_repo("octo/app")
        issue = server.add_issue("octo/app", "t")
        server.add_issue("octo/app", "other")
        client = GitHubClient("t", "octo/app", base_url=server.url, throttle=False)
        await client.create_comment(issue, "a human comment")
        await ProgressComment(client, issue, min_interval=0).publish("first run")
        second = ProgressComment(client, issue, min_interval=0)
        await second.publish("second run")
        await second.publish("second run, done", final=True)
        assert server.comments("octo/app", issue) == [
            "a human comment",
            "<!-- amelia:progress issue=1 -->\nsecond run, done",
        ]
        assert len(server.requests_to("POST", r"/repos/octo/app/issues/1/comments")) == 2


async def test_progress_comment_deleted_meanwhile_is_posted_again() -> None:
    with FakeGitHubServer() as server:
        server.add_repo("octo/app")
        issue = server.add_issue("octo/app", "t")
        client = GitHubClient("t", "octo/app", base_url=server.url, throttle=False)
        progress = ProgressComment(client, issue, min_interval=0)
        await progress.publish("started")
        assert progress.comment is not None
        await client.delete_comment(progress.comment.id)
        await progress.publish("finished", final=True)
        assert server.comments("octo/app", issue) == ["<!-- amelia:progress issue=1 -->\nfinished"]
