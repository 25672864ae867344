"""The dry run reads from GitHub and records every write of the port instead of making it."""

from __future__ import annotations

import io
import json
from collections.abc import Awaitable, Callable
from pathlib import Path

import pytest

from amelia.github.client import GitHubClient
from amelia.github.dry_run import DryRunGitHub
from amelia.github.models import InlineComment
from amelia.github.port import READ_OPERATIONS, WRITE_OPERATIONS, GitHubPort
from amelia.testing.github import FakeGitHubServer, GitHubState, InMemoryGitHub

REPO = "octo/app"
DIFF = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n x\n+y\n"


async def test_dry_run_client_saves_writes_instead_of_sending(tmp_path: Path) -> None:
    out = io.StringIO()
    reads = GitHubClient(token="t", repo="o/r", base_url="http://127.0.0.1:9")
    client = DryRunGitHub(reads, directory=tmp_path, stream=out)
    created = await client.create_comment(3, "hello\nworld")
    await client.edit_comment(created.id, "bye")
    await client.delete_comment(created.id)

    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["001-create_comment.json", "002-edit_comment.json", "003-delete_comment.json"]
    first = json.loads((tmp_path / files[0]).read_text())
    assert first == {"action": "create_comment", "issue_number": 3, "body": "hello\nworld"}
    assert "would create comment" in out.getvalue() and "    world" in out.getvalue()
    assert await client.find_comment_with_marker(3, "hello") is not None


def _seeded() -> tuple[GitHubState, dict[str, int | str]]:
    """A repository with an issue and its comment, and a pull with a review thread."""
    state = GitHubState()
    state.add_repo(REPO, branches=("feature",))
    issue = state.add_issue(REPO, "An issue")
    comment = state.create_comment(REPO, issue, "a comment", author="alice")
    pull = state.add_pull(REPO, head="feature", diff=DIFF)
    root = state.add_review_comment(REPO, pull, user="alice", path="a.py", line=2, body="?")
    thread = state.review_threads(REPO, pull)[1][0].id
    return state, {
        "issue": issue,
        "comment": comment.id,
        "pull": pull,
        "root": root,
        "thread": thread,
    }


Write = Callable[[GitHubPort, dict[str, int | str]], Awaitable[object]]
WRITES: dict[str, Write] = {
    "create_comment": lambda g, ids: g.create_comment(int(ids["issue"]), "hello"),
    "edit_comment": lambda g, ids: g.edit_comment(int(ids["comment"]), "edited"),
    "delete_comment": lambda g, ids: g.delete_comment(int(ids["comment"])),
    "create_pull": lambda g, ids: g.create_pull("feature", "main", "T", "B", draft=True),
    "update_pull": lambda g, ids: g.update_pull(int(ids["pull"]), body="new"),
    "create_review": lambda g, ids: g.create_review(
        int(ids["pull"]), "R", "COMMENT", comments=[InlineComment(path="a.py", line=2, body="c")]
    ),
    "reply_to_review_comment": lambda g, ids: g.reply_to_review_comment(
        int(ids["pull"]), int(ids["root"]), "reply"
    ),
    "resolve_review_thread": lambda g, ids: g.resolve_review_thread(str(ids["thread"])),
    "dispatch_workflow": lambda g, ids: g.dispatch_workflow(12345, "feature"),
}
"""One call of every write of the port."""


def _snapshot(state: GitHubState) -> object:
    repository = state.repository(REPO)
    return repr(
        (
            sorted((c.id, c.body) for c in repository.comments.values()),
            sorted((i.number, i.title, i.body, i.state) for i in repository.issues.values()),
            [
                (
                    len(i.pull.reviews),
                    sorted(i.pull.review_comments),
                    [(t.id, t.is_resolved, list(t.comment_ids)) for t in i.pull.threads],
                )
                for i in repository.issues.values()
                if i.pull
            ],
        )
    )


def test_the_port_names_its_writes_and_every_one_has_a_call_here() -> None:
    assert set(WRITES) == WRITE_OPERATIONS
    assert {"create_comment", "create_review", "resolve_review_thread"} <= WRITE_OPERATIONS
    assert not WRITE_OPERATIONS & READ_OPERATIONS
    assert GitHubPort.__abstractmethods__ == WRITE_OPERATIONS | READ_OPERATIONS


@pytest.mark.parametrize("reads", ["adapter over HTTP", "in memory"])
async def test_every_write_of_the_port_is_recorded_and_none_reaches_github(
    reads: str, tmp_path: Path
) -> None:
    state, ids = _seeded()
    before = _snapshot(state)
    out = io.StringIO()
    with FakeGitHubServer(state=state) as server:
        github: GitHubPort = (
            GitHubClient("t", REPO, base_url=server.url, throttle=False)
            if reads == "adapter over HTTP"
            else InMemoryGitHub(state, REPO)
        )
        dry = DryRunGitHub(github, directory=tmp_path, stream=out)
        for name, write in sorted(WRITES.items()):
            await write(dry, ids)
            assert dry.writes[-1]["action"] == name
        requested = {request.method for request in server.requests}

    assert [entry["action"] for entry in dry.writes] == sorted(WRITES)
    files = sorted(path.name for path in tmp_path.iterdir())
    assert files == [f"{n:03d}-{name}.json" for n, name in enumerate(sorted(WRITES), start=1)]
    assert out.getvalue().count("[dry run] would ") == len(WRITES)
    assert _snapshot(state) == before
    assert requested <= {"GET"}  # reads only (update_pull reads the pull back)
