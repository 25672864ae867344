"""Review threads through the real client against the local GitHub: amelia's earlier
findings are read back (REST review comments, GraphQL `reviewThreads`), answered in their
thread and resolved; a token that may not resolve threads only costs a warning."""

from __future__ import annotations

from amelia.action.modes.review._earlier_findings import close_fixed
from amelia.core.state import ReviewComment, ReviewResult
from amelia.github.client import GitHubClient
from amelia.github.comments import build_review
from amelia.github.options import RetryPolicy
from amelia.github.review_history import load_review_history
from amelia.testing.github_server import FakeGitHubServer

REPO = "octo/app"
HEAD = "c" * 40
LINES = 120
"""More findings than one page of 100 threads."""
DIFF = (
    "diff --git a/calc.py b/calc.py\n--- /dev/null\n+++ b/calc.py\n"
    f"@@ -0,0 +1,{LINES} @@\n" + "".join(f"+x{n} = {n}\n" for n in range(1, LINES + 1))
)


def _client(server: FakeGitHubServer) -> GitHubClient:
    return GitHubClient(
        "t", REPO, base_url=server.url, policy=RetryPolicy(max_attempts=1), throttle=False
    )


async def _post_findings(server: FakeGitHubServer, client: GitHubClient, count: int) -> int:
    server.add_repo(REPO, branches=("main", "fix"))
    number = server.add_pull(REPO, head="fix", diff=DIFF, head_sha=HEAD)
    comments = tuple(
        ReviewComment(path="calc.py", line=n, severity="major", body=f"x{n} is wrong")
        for n in range(1, count + 1)
    )
    result = ReviewResult(verdict="changes_requested", summary="no", comments=comments)
    body, inline = build_review(result, DIFF, HEAD)
    await client.create_review(number, body, "COMMENT", comments=inline, commit_id=HEAD)
    return number


async def test_findings_are_read_back_answered_and_resolved() -> None:
    with FakeGitHubServer() as server:
        client = _client(server)
        number = await _post_findings(server, client, LINES)

        history = await load_review_history(client, number)
        assert history.last_reviewed == HEAD
        assert len(history.open_findings) == LINES  # every thread read, over two pages
        first = history.open_findings[0]
        assert (first.comment.path, first.comment.original_line) == ("calc.py", 1)
        assert (first.severity, first.text) == ("major", "x1 is wrong")
        assert first.thread_id is not None

        reply = await client.reply_to_review_comment(number, first.comment.id, "Fixed in abc")
        assert reply.in_reply_to_id == first.comment.id and reply.path == "calc.py"
        assert await client.resolve_review_thread(first.thread_id)
        threads = {t.id: t for t in await client.list_review_threads(number)}
        assert threads[first.thread_id].comment_ids == (first.comment.id, reply.id)

        reread = await load_review_history(client, number)
        assert len(reread.open_findings) == LINES - 1  # the resolved one is no longer open
        assert first.comment.id not in {f.comment.id for f in reread.open_findings}


async def test_a_thread_the_token_may_not_resolve_is_only_a_warning() -> None:
    with FakeGitHubServer() as server:
        client = _client(server)
        number = await _post_findings(server, client, 1)
        (finding,) = (await load_review_history(client, number)).open_findings
        server.forbid_resolving = True
        warnings: list[str] = []

        resolved = await close_fixed(client, number, [finding], "d" * 40, warn=warnings.append)

        assert resolved == 0
        (warning,) = warnings
        assert "could not resolve" in warning and "Resource not accessible" in warning
        replies = [c for c in server.review_comments(REPO, number) if c.get("in_reply_to_id")]
        assert [r["body"].splitlines()[-1] for r in replies] == [f"Fixed in {'d' * 40}"]
        assert [t["isResolved"] for t in server.threads(REPO, number)] == [False]
