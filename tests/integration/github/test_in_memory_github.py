"""What only the in-memory GitHub promises: no thread, no socket and no waiting, and the same
state as the local server it may be taken from."""

from __future__ import annotations

import socket
import threading

import pytest

from amelia.errors import GitHubRetryExhaustedError
from amelia.github.client import GitHubClient
from amelia.github.models import InlineComment
from amelia.github.options import RetryPolicy
from amelia.testing.github import FakeGitHubServer, Fault, GitHubState, InMemoryGitHub

REPO = "octo/app"
DIFF = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y\n"


class _Forbidden(socket.socket):
    def __init__(self, *args: object, **kwargs: object) -> None:
        raise AssertionError("the in-memory GitHub opened a socket")


async def test_every_operation_runs_without_a_thread_or_a_socket(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    state = GitHubState()
    state.add_repo(REPO, branches=("feature",))
    issue = state.add_issue(REPO, "An issue", labels=["amelia"])
    github = InMemoryGitHub(state, REPO)

    def no_thread(self: threading.Thread) -> None:
        raise AssertionError("the in-memory GitHub started a thread")

    monkeypatch.setattr(socket, "socket", _Forbidden)
    monkeypatch.setattr(threading.Thread, "start", no_thread)
    comment = await github.create_comment(issue, "<!-- m --> hi")
    await github.edit_comment(comment.id, "<!-- m --> edited")
    assert await github.find_comment_with_marker(issue, "<!-- m -->") is not None
    await github.delete_comment(comment.id)
    pull = await github.create_pull("feature", "main", "T", "B", draft=True)
    state.push_to_pull(REPO, pull.number, "a" * 40, DIFF)
    await github.update_pull(pull.number, title="T2")
    review = await github.create_review(
        pull.number, "R", "COMMENT", comments=[InlineComment(path="a.py", line=2, body="c")]
    )
    (root,) = await github.list_review_comments(pull.number)
    await github.reply_to_review_comment(pull.number, root.id, "reply")
    (thread,) = await github.list_review_threads(pull.number)
    assert await github.resolve_review_thread(thread.id)
    assert (await github.list_reviews(pull.number))[0].id == review.id
    assert await github.get_pull_diff(pull.number) == DIFF
    assert (await github.find_open_pull("feature")) is not None
    assert [i.number for i in await github.list_labelled_issues("amelia")] == [issue]
    assert (await github.get_issue(issue)).title == "An issue"
    assert await github.get_permission("octocat") == "none"
    assert (await github.token_facts()).login == "github-actions[bot]"
    assert await github.default_branch() == "main"
    assert await github.get_file("README.md", "main") is None  # no bare repository


async def test_nothing_waits_a_stall_is_a_timeout_at_once_and_waits_are_recorded() -> None:
    state = GitHubState()
    state.add_repo(REPO)
    number = state.add_issue(REPO, "t")
    github = InMemoryGitHub(state, REPO, policy=RetryPolicy(max_attempts=2))
    state.inject(
        "GET",
        rf"/repos/{REPO}/issues/{number}",
        Fault(kind="stall", stall_seconds=3600),
        Fault(kind="delay", stall_seconds=3600),
        Fault.retry_after(30),
        Fault.retry_after(30),
    )
    assert (await github.get_issue(number)).title == "t"  # the stall timed out, then a delay
    assert [r.reason for r in github.retry_log] == ["ReadTimeout: Read timed out."]
    with pytest.raises(GitHubRetryExhaustedError, match="after 2 attempt"):
        await github.get_issue(number)
    assert github.sleeps == [1.0, 30.0]


async def test_the_server_and_its_in_memory_github_share_one_state() -> None:
    with FakeGitHubServer() as server:
        server.add_repo(REPO)
        number = server.add_issue(REPO, "seeded through the server")
        memory = server.memory(REPO)
        client = GitHubClient("t", REPO, base_url=server.url, throttle=False)

        await memory.create_comment(number, "written in memory")
        await client.create_comment(number, "written over HTTP")

        assert (await memory.get_issue(number)).title == "seeded through the server"
        assert server.comments(REPO, number) == ["written in memory", "written over HTTP"]
        assert [r.method for r in server.requests_to("POST", r".*")] == ["POST"]
        assert memory.state is server.state
