"""The real PyGithub, wrapped by GitHubClient, against the local stateful GitHub server."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from github import GithubException

from amelia.errors import (
    GitHubNotFoundError,
    GitHubRetryExhaustedError,
    GitHubValidationError,
)
from amelia.github.client import GitHubClient, InlineComment, server_requested_delay
from amelia.github.options import RetryPolicy
from amelia.testing.github_server import FakeGitHubServer, Fault
from tests.git_helpers import git, init_repo
from tests.integration.github.conftest import pygithub

REPO = "octo/app"
DIFF = "\n".join(
    [
        "diff --git a/app.py b/app.py",
        "index 1111111..2222222 100644",
        "--- a/app.py",
        "+++ b/app.py",
        "@@ -1,3 +1,4 @@",
        " import os",
        "+import sys",
        " ",
        " def main():",
        "",
    ]
)


@pytest.fixture
def server() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as fake:
        fake.add_repo(REPO, branches=("main", "amelia/issue-1"))
        yield fake


def make_client(server: FakeGitHubServer, sleeps: list[float] | None = None) -> GitHubClient:
    record = sleeps if sleeps is not None else []
    return GitHubClient(
        token="test-token",
        repo=REPO,
        base_url=server.url,
        policy=RetryPolicy(max_attempts=5, max_total_wait=10, backoff_base=0.01),
        timeout=2,
        throttle=False,
        sleep=record.append,
    )


async def test_retries_502_502_429_then_succeeds_and_honours_retry_after(
    server: FakeGitHubServer,
) -> None:
    number = server.add_issue(REPO, "Crash on start", "trace", labels=["bug"])
    sleeps: list[float] = []
    client = make_client(server, sleeps)
    await client.default_branch()
    server.inject("GET", rf"/repos/{REPO}/issues/{number}", Fault(), Fault(), Fault.retry_after(1))
    issue = await client.get_issue(number)
    assert issue.title == "Crash on start"
    assert issue.labels == ("bug",)
    assert client.retry_count == 3
    assert sleeps[-1] == 1.0
    assert len(server.requests_to("GET", rf"/repos/{REPO}/issues/{number}")) == 4


async def test_secondary_rate_limit_and_reset_header_are_retried(server: FakeGitHubServer) -> None:
    sleeps: list[float] = []
    client = make_client(server, sleeps)
    await client.default_branch()
    server.inject(
        "POST",
        rf"/repos/{REPO}/issues/\d+/comments",
        Fault.secondary_rate_limit(),
        Fault.rate_limit_reset(int(time.time()) + 3),
    )
    number = server.add_issue(REPO, "t")
    await client.create_comment(number, "hello")
    assert server.comments(REPO, number) == ["hello"]
    assert client.retry_count == 2
    assert 0 < sleeps[1] <= 5


async def test_connection_reset_is_retried(server: FakeGitHubServer) -> None:
    client = make_client(server)
    await client.default_branch()
    server.inject("GET", rf"/repos/{REPO}/pulls", Fault(kind="reset"))
    assert await client.find_open_pull("nothing") is None
    assert client.retry_count == 1


async def test_persistent_5xx_stops_after_max_attempts(server: FakeGitHubServer) -> None:
    client = make_client(server)
    await client.default_branch()
    server.inject("GET", rf"/repos/{REPO}/issues/1", *[Fault(status=503)] * 10)
    with pytest.raises(GitHubRetryExhaustedError, match="after 5 attempt"):
        await client.get_issue(1)
    assert client.retry_count == 4


async def test_retry_after_beyond_budget_gives_up_at_once(server: FakeGitHubServer) -> None:
    client = make_client(server)
    await client.default_branch()
    server.inject("GET", rf"/repos/{REPO}/issues/1", Fault.retry_after(3600))
    with pytest.raises(GitHubRetryExhaustedError, match="429"):
        await client.get_issue(1)
    assert client.retry_count == 0


async def test_404_raises_typed_error_without_retry(server: FakeGitHubServer) -> None:
    client = make_client(server)
    with pytest.raises(GitHubNotFoundError, match=r"get issue #42 failed: 404 Not Found"):
        await client.get_issue(42)
    assert client.retry_count == 0


async def test_pagination_of_250_labelled_issues_uses_three_requests(
    server: FakeGitHubServer,
) -> None:
    for n in range(250):
        server.add_issue(REPO, f"issue {n}", labels=["amelia"])
    server.add_issue(REPO, "unlabelled")
    server.add_issue(REPO, "closed", labels=["amelia"], state="closed")
    client = make_client(server)
    issues = await client.list_labelled_issues("amelia")
    assert len(issues) == 250
    assert len({i.number for i in issues}) == 250
    pages = server.requests_to("GET", "/repos/octo/app/issues")
    assert len(pages) == 3
    assert pages[0].query["labels"] == ["amelia"]
    assert pages[0].query["state"] == ["open"]


async def test_listing_3000_labelled_issues_takes_one_request_per_page_oldest_first(
    server: FakeGitHubServer,
) -> None:
    """Requests grow with pages, not issues: 3,000 labelled issues, 300 labelled pulls
    among them (GitHub's issue list holds both) and 300 unlabelled issues."""
    for n in range(3_300):
        if n % 11 == 5:
            pull = server.add_pull(REPO, head=f"feature-{n}")
            server.state.add_label(REPO, pull, "amelia")
        server.add_issue(REPO, f"issue {n}", labels=["bug"] if n % 11 == 10 else ["amelia"])
    # Numbered last, created first: moved here from another repository.
    moved = server.add_issue(
        REPO, "moved", labels=["amelia"], created_at="2001-01-01T00:00:00Z", reactions={"+1": 2}
    )

    issues = await make_client(server).list_labelled_issues("amelia")

    labelled_items = 3_000 + 300 + 1  # issues, pulls and the moved issue carrying the label
    pages = server.requests_to("GET", "/repos/octo/app/issues")
    assert len(pages) == math.ceil(labelled_items / 100) == 34
    assert {
        (q["per_page"][0], q["sort"][0], q["direction"][0]) for q in (p.query for p in pages)
    } == {("100", "created", "asc")}
    assert len(server.requests) == len(pages)  # nothing else: no request per issue
    assert len(issues) == 3_001
    assert not any(issue.is_pull_request for issue in issues)
    assert issues[0].number == moved and issues[0].thumbs_up == 2
    assert [i.number for i in issues[1:]] == sorted(i.number for i in issues[1:])
    assert issues[1].created_at is not None and issues[1].thumbs_up == 0


async def test_labelled_pull_requests_are_not_listed_as_issues(server: FakeGitHubServer) -> None:
    issue = server.add_issue(REPO, "an issue", labels=["amelia"])
    pull = server.add_pull(REPO, head="feature")
    server.state.add_label(REPO, pull, "amelia")  # GitHub's issue list holds labelled pulls
    listed = await make_client(server).list_labelled_issues("amelia")
    assert [i.number for i in listed] == [issue]


async def test_page_failure_resumes_instead_of_restarting(server: FakeGitHubServer) -> None:
    for n in range(150):
        server.add_issue(REPO, f"issue {n}", labels=["amelia"])
    client = make_client(server)
    server.inject("GET", "/repos/octo/app/issues", Fault(), Fault(), Fault())
    # The first three page requests fail; after that page 1 and page 2 each succeed once.
    assert len(await client.list_labelled_issues("amelia")) == 150
    assert len(server.requests_to("GET", "/repos/octo/app/issues")) == 5


async def test_a_diff_too_large_for_github_is_none_not_a_failure(server: FakeGitHubServer) -> None:
    big = "".join(f"+row {n}\n" for n in range(20_001))
    diff = (
        f"diff --git a/big.txt b/big.txt\n--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,20001 @@\n{big}"
    )
    number = server.add_pull(REPO, head="bulk", diff=diff)
    client = make_client(server)
    assert await client.get_pull_diff(number) is None
    (asked,) = server.requests_to("GET", rf"/repos/octo/app/pulls/{number}")  # not retried
    assert asked.headers["accept"] == "application/vnd.github.diff"


async def test_review_with_inline_comments_is_validated_against_the_diff(
    server: FakeGitHubServer,
) -> None:
    number = server.add_pull(REPO, head="amelia/issue-1", diff=DIFF, head_sha="a" * 40)
    client = make_client(server)
    assert await client.get_pull_diff(number) == DIFF
    review = await client.create_review(
        number,
        "Looks good",
        "COMMENT",
        comments=[InlineComment(path="app.py", line=2, body="why sys?")],
        commit_id="a" * 40,
    )
    assert review.state == "COMMENTED"
    posted = server.reviews(REPO, number)[0]
    assert posted["comments"] == [
        {"path": "app.py", "line": 2, "body": "why sys?", "side": "RIGHT"}
    ]
    assert posted["commit_id"] == "a" * 40
    with pytest.raises(GitHubValidationError, match="part of the diff"):
        await client.create_review(
            number, "x", "COMMENT", comments=[InlineComment(path="app.py", line=40, body="out")]
        )


async def test_comments_pulls_permissions_and_branches(
    server: FakeGitHubServer, tmp_path: Path
) -> None:
    number = server.add_issue(REPO, "t")
    server.set_permission(REPO, "alice", "maintain")
    server.set_permission(REPO, "bob", "read")
    client = make_client(server)
    first = await client.create_comment(number, "<!-- amelia:progress issue=1 --> working")
    await client.create_comment(number, "unrelated")
    found = await client.find_comment_with_marker(number, "<!-- amelia:progress issue=1 -->")
    assert found is not None and found.id == first.id
    await client.edit_comment(first.id, "<!-- amelia:progress issue=1 --> done")
    assert server.comments(REPO, number)[0].endswith("done")
    assert await client.get_permission("alice") == "maintain"
    assert await client.get_permission("bob") == "read"
    assert await client.get_permission("mallory") == "none"
    # The branches the repository was registered with (the Action never asks GitHub for one).
    branches = pygithub(server).get_repo(REPO)
    assert branches.get_branch("amelia/issue-1").name == "amelia/issue-1"
    with pytest.raises(GithubException) as missing:
        branches.get_branch("nope")
    assert missing.value.status == 404
    pull = await client.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    assert pull.draft and pull.head_ref == "amelia/issue-1"
    assert await client.find_open_pull("amelia/issue-1") == pull
    updated = await client.update_pull(pull.number, body="new body")
    assert updated.body == "new body"
    assert (await client.get_pull(pull.number)).body == "new body"
    with pytest.raises(GitHubValidationError, match="already exists"):
        await client.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    assert await client.default_branch() == "main"


async def test_stalled_request_times_out_and_is_retried(server: FakeGitHubServer) -> None:
    client = GitHubClient(
        token="t",
        repo=REPO,
        base_url=server.url,
        policy=RetryPolicy(max_attempts=2, backoff_base=0),
        timeout=1,
        throttle=False,
    )
    await client.default_branch()
    server.inject("GET", rf"/repos/{REPO}/issues/1", Fault(kind="stall", stall_seconds=2))
    server.add_issue(REPO, "slow")
    assert (await client.get_issue(1)).title == "slow"
    assert client.retry_count == 1
    assert "Timeout" in client.retry_log[0].reason or "timed out" in client.retry_log[0].reason


async def test_bracketed_logins(server: FakeGitHubServer) -> None:
    client = GitHubClient(token="tok", repo=REPO, base_url=server.url, throttle=False)
    server.set_permission(REPO, "dependabot[bot]", "write")
    assert await client.get_permission("dependabot[bot]") == "write"


def test_http_date_retry_after_is_honoured() -> None:
    exc = GithubException(
        503, {"message": "busy"}, {"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}
    )
    at = 1445412485.0  # 5 seconds earlier
    assert server_requested_delay(exc, at) == 5.0


async def test_get_file_reads_a_file_at_a_ref_and_none_for_a_missing_file_or_a_folder(
    tmp_path: Path,
) -> None:
    work = init_repo(tmp_path / "work", {".github/amelia.yml": "instructions: main\n"})
    (work / "data.bin").write_bytes(b"\xff\x00 not utf-8")
    git(work, "add", "--all")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qm", "bin")
    git(work, "checkout", "-qb", "feature")
    (work / ".github" / "amelia.yml").write_text("instructions: head\n", encoding="utf-8")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qam", "head")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    with FakeGitHubServer() as fake:
        fake.add_repo(REPO, bare_path=bare)
        client = make_client(fake)
        assert await client.get_file(".github/amelia.yml", "main") == b"instructions: main\n"
        assert await client.get_file(".github/amelia.yml", "feature") == b"instructions: head\n"
        assert await client.get_file("data.bin", "main") == b"\xff\x00 not utf-8"
        assert await client.get_file("missing.yml", "main") is None
        assert await client.get_file(".github", "main") is None
        (read, *_rest) = fake.requests_to("GET", r"/repos/octo/app/contents/\.github/amelia\.yml")
        assert read.query == {"ref": ["main"]}
