"""The GitHub port's contract, held by both GitHubs the tests use: the adapter over PyGithub
talking HTTP to the local server, and the in-memory GitHub over the same kind of state.

Every test runs against both (`port`), seeds the state the same way and expects the same
answers, the same refusals with the same `GitHubError` class and message, and the same
retries, so a mode tested in-process against the in-memory GitHub meets the GitHub the
adapter meets."""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from amelia.errors import (
    GitHubAuthError,
    GitHubError,
    GitHubNotFoundError,
    GitHubRetryExhaustedError,
    GitHubValidationError,
)
from amelia.github.client import GitHubClient
from amelia.github.models import (
    CommentInfo,
    InlineComment,
    IssueInfo,
    PullInfo,
    ReviewCommentInfo,
    ReviewInfo,
)
from amelia.github.options import RetryPolicy
from amelia.github.retrying import RetryRecord
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts
from amelia.testing.github import FakeGitHubServer, Fault, GitHubState, InMemoryGitHub
from tests.git_helpers import git, init_repo

REPO = "octo/app"
WEB = "https://github.com/octo/app"
POLICY = RetryPolicy(max_attempts=5, max_total_wait=10, backoff_base=0.01)
HEAD = "c" * 40
DIFF = (
    "diff --git a/app.py b/app.py\n--- a/app.py\n+++ b/app.py\n"
    "@@ -1,3 +1,4 @@\n import os\n+import sys\n \n def main():\n"
)


@dataclass
class Port:
    """One GitHub under test, its state, and what it waited between attempts."""

    kind: str
    state: GitHubState
    github: GitHubClient | InMemoryGitHub
    sleeps: list[float]

    @property
    def retries(self) -> list[RetryRecord]:
        return self.github.retry_log


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bare repository with `main` (`.github/amelia.yml`, a folder, a binary file) and
    `feature` (another `.github/amelia.yml`)."""
    root = tmp_path_factory.mktemp("origin")
    work = init_repo(root / "work", {".github/amelia.yml": "instructions: main\n"})
    (work / "data.bin").write_bytes(b"\xff\x00 not utf-8")
    git(work, "add", "--all")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qm", "bin")
    git(work, "checkout", "-qb", "feature")
    (work / ".github" / "amelia.yml").write_text("instructions: head\n", encoding="utf-8")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qam", "head")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    return bare


@pytest.fixture(params=["adapter over HTTP", "in memory"])
def port(request: pytest.FixtureRequest, origin: Path) -> Iterator[Port]:
    state = GitHubState()
    state.add_repo(REPO, bare_path=origin, branches=("amelia/issue-1",))
    if request.param == "in memory":
        memory = InMemoryGitHub(state, REPO, policy=POLICY)
        yield Port(request.param, state, memory, memory.sleeps)
        return
    sleeps: list[float] = []
    with FakeGitHubServer(state=state) as server:
        client = GitHubClient(
            "t", REPO, base_url=server.url, policy=POLICY, throttle=False, sleep=sleeps.append
        )
        yield Port(request.param, state, client, sleeps)
        client.close()


# the repository ----------------------------------------------------------------------------


async def test_the_default_branch_and_files_at_a_ref(port: Port) -> None:
    github = port.github
    assert await github.default_branch() == "main"
    assert await github.get_file(".github/amelia.yml", "main") == b"instructions: main\n"
    assert await github.get_file(".github/amelia.yml", "feature") == b"instructions: head\n"
    assert await github.get_file("data.bin", "main") == b"\xff\x00 not utf-8"
    assert await github.get_file("missing.yml", "main") is None
    assert await github.get_file(".github", "main") is None  # a folder is no file
    assert await github.get_file("data.bin", "no-such-ref") is None


async def test_roles_as_github_names_them(port: Port) -> None:
    for login, role in [
        ("alice", "admin"),
        ("mona", "maintain"),
        ("tria", "triage"),
        ("bob", "read"),
        ("dependabot[bot]", "write"),
    ]:
        port.state.set_permission(REPO, login, role)
    port.state.add_user("stranger")
    github = port.github
    roles = [await github.get_permission(u) for u in ("alice", "mona", "tria", "bob")]
    assert roles == ["admin", "maintain", "triage", "read"]
    assert await github.get_permission("dependabot[bot]") == "write"
    assert await github.get_permission("stranger") == "none"  # known, no role here
    assert await github.get_permission("ghost") == "none"  # GitHub knows no such user
    assert port.retries == []


@pytest.mark.parametrize(
    ("scopes", "login", "facts"),
    [
        (None, None, TokenFacts(login=JOB_TOKEN_LOGIN)),
        (("repo", "workflow"), None, TokenFacts(scopes=("repo", "workflow"))),
        ((), None, TokenFacts(scopes=())),
        (None, "acme-builder[bot]", TokenFacts(login="acme-builder[bot]")),
    ],
    ids=["job token", "classic token", "no scope", "app token"],
)
async def test_what_github_tells_about_the_token(
    port: Port, scopes: tuple[str, ...] | None, login: str | None, facts: TokenFacts
) -> None:
    port.state.oauth_scopes = scopes
    if login is not None:
        port.state.token_user.login = login
    assert await port.github.token_facts() == facts


async def test_a_token_github_will_not_answer_for_is_an_auth_error(port: Port) -> None:
    port.state.inject("GET", rf"/repos/{REPO}", Fault(status=403, message="Forbidden"))
    with pytest.raises(GitHubAuthError) as refused:
        await port.github.token_facts()
    assert refused.value.message == f"GitHub get repository {REPO} failed: 403 Forbidden"
    assert refused.value.status == 403


# issues and comments -----------------------------------------------------------------------


async def test_an_issue_and_a_pull_read_as_issues(port: Port) -> None:
    number = port.state.add_issue(
        REPO,
        "Crash on start",
        "trace",
        user="alice",
        labels=["bug", "amelia"],
        created_at="2024-05-01T10:00:00Z",
        reactions={"+1": 3, "heart": 1},
    )
    pull = port.state.add_pull(REPO, head="feature", title="Fix", user="bob")
    assert await port.github.get_issue(number) == IssueInfo(
        number=number,
        title="Crash on start",
        body="trace",
        author="alice",
        labels=("bug", "amelia"),
        state="open",
        is_pull_request=False,
        html_url=f"{WEB}/issues/{number}",
        created_at=datetime(2024, 5, 1, 10, tzinfo=UTC),
        thumbs_up=3,
    )
    as_issue = await port.github.get_issue(pull)
    assert as_issue.is_pull_request and as_issue.author == "bob"
    assert as_issue.html_url == f"{WEB}/issues/{pull}"


async def test_a_missing_issue_is_not_found_at_once(port: Port) -> None:
    with pytest.raises(GitHubNotFoundError) as missing:
        await port.github.get_issue(42)
    assert missing.value.message == "GitHub get issue #42 failed: 404 Not Found"
    assert missing.value.status == 404
    assert port.retries == []


async def test_comments_are_made_found_edited_and_deleted(port: Port) -> None:
    github, state = port.github, port.state
    number = state.add_issue(REPO, "t")
    state.create_comment(REPO, number, "a person's comment", author="alice")
    first = await github.create_comment(number, "<!-- marker --> working")
    assert first == CommentInfo(
        id=first.id,
        body="<!-- marker --> working",
        author=JOB_TOKEN_LOGIN,
        html_url=f"{WEB}/issues/{number}#issuecomment-{first.id}",
    )
    second = await github.create_comment(number, "<!-- marker --> again")
    assert await github.find_comment_with_marker(number, "<!-- marker -->") == first
    assert await github.find_comment_with_marker(number, "absent") is None
    edited = await github.edit_comment(first.id, "<!-- marker --> done")
    assert edited.body == "<!-- marker --> done" and edited.id == first.id
    await github.delete_comment(second.id)
    bodies = [c.body for c in state.issue_comments(REPO, number)]
    assert bodies == ["a person's comment", "<!-- marker --> done"]
    with pytest.raises(GitHubNotFoundError) as gone:
        await github.edit_comment(second.id, "too late")
    assert gone.value.message == f"GitHub edit comment {second.id} failed: 404 Not Found"


async def test_github_refuses_an_empty_comment_and_one_on_no_issue(port: Port) -> None:
    number = port.state.add_issue(REPO, "t")
    with pytest.raises(GitHubValidationError) as empty:
        await port.github.create_comment(number, "")
    assert empty.value.message == (
        f"GitHub comment on #{number} failed: 422 Validation Failed (missing_field)"
    )
    with pytest.raises(GitHubNotFoundError) as nowhere:
        await port.github.create_comment(99, "hello")
    assert nowhere.value.message == "GitHub comment on #99 failed: 404 Not Found"


async def test_labelled_issues_oldest_first_without_pulls_over_pages(port: Port) -> None:
    state = port.state
    for n in range(230):
        state.add_issue(REPO, f"issue {n}", labels=["Amelia"] if n % 10 else ["bug"])
    moved = state.add_issue(
        REPO, "moved", labels=["amelia"], created_at="2001-01-01T00:00:00Z", reactions={"+1": 2}
    )
    state.add_issue(REPO, "closed", labels=["amelia"], state="closed")
    pull = state.add_pull(REPO, head="feature")
    state.add_label(REPO, pull, "amelia")  # GitHub's issue list holds labelled pulls too

    issues = await port.github.list_labelled_issues("amelia")

    assert len(issues) == 208  # 207 of the 230, and the moved one
    assert issues[0].number == moved and issues[0].thumbs_up == 2
    assert [i.number for i in issues[1:]] == sorted(i.number for i in issues[1:])
    assert not any(issue.is_pull_request for issue in issues)
    assert [i.number for i in await port.github.list_labelled_issues("amelia", state="closed")]


# pull requests -----------------------------------------------------------------------------


async def test_a_pull_is_opened_found_updated_and_read(port: Port) -> None:
    github = port.github
    pull = await github.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    assert pull == PullInfo(
        number=pull.number,
        title="Plan",
        body="body",
        author=JOB_TOKEN_LOGIN,
        head_ref="amelia/issue-1",
        head_sha="0" * 40,
        base_ref="main",
        draft=True,
        state="open",
        html_url=f"{WEB}/pull/{pull.number}",
        head_repo=REPO,
        from_fork=False,
    )
    assert await github.find_open_pull("amelia/issue-1") == pull
    assert await github.find_open_pull("nothing") is None
    updated = await github.update_pull(pull.number, body="new body")
    assert updated.body == "new body" and updated.title == "Plan"
    assert await github.get_pull(pull.number) == updated


async def test_github_refuses_a_second_pull_from_a_branch_and_one_from_no_branch(
    port: Port,
) -> None:
    github = port.github
    await github.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    with pytest.raises(GitHubValidationError) as twice:
        await github.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    assert twice.value.message == (
        "GitHub open pull for amelia/issue-1 failed: 422 Validation Failed "
        "(A pull request already exists for octo:amelia/issue-1.)"
    )
    with pytest.raises(GitHubValidationError) as nowhere:
        await github.create_pull("nope", "main", "T", "B", draft=False)
    assert (
        nowhere.value.message == "GitHub open pull for nope failed: 422 Validation Failed (invalid)"
    )
    with pytest.raises(GitHubNotFoundError) as missing:
        await github.get_pull(99)
    assert missing.value.message == "GitHub get pull #99 failed: 404 Not Found"


async def test_a_pull_from_a_fork_names_the_fork(port: Port) -> None:
    number = port.state.add_pull(REPO, head="feature", head_repo="newcomer/app")
    pull = await port.github.get_pull(number)
    assert (pull.head_repo, pull.from_fork) == ("newcomer/app", True)


async def test_a_diff_and_one_too_large_for_github(port: Port) -> None:
    number = port.state.add_pull(REPO, head="feature", diff=DIFF)
    assert await port.github.get_pull_diff(number) == DIFF
    assert await port.github.get_pull_diff(port.state.add_pull(REPO, head="x")) == ""
    port.state.max_diff_lines = 3
    assert await port.github.get_pull_diff(number) is None
    with pytest.raises(GitHubNotFoundError) as missing:
        await port.github.get_pull_diff(99)
    assert missing.value.message == "GitHub get diff of pull #99 failed: 404 Not Found"


# reviews and threads -----------------------------------------------------------------------


async def test_a_review_with_inline_comments_is_validated_against_the_diff(port: Port) -> None:
    github = port.github
    number = port.state.add_pull(REPO, head="feature", diff=DIFF, head_sha=HEAD)
    inline = [InlineComment(path="app.py", line=2, body="why sys?")]
    review = await github.create_review(number, "Looks odd", "COMMENT", comments=inline)
    assert review == ReviewInfo(
        id=review.id,
        state="COMMENTED",
        commit_id=HEAD,
        html_url=f"{WEB}/pull/{number}#pullrequestreview-{review.id}",
        body="Looks odd",
        author=JOB_TOKEN_LOGIN,
        author_type="Bot",
    )
    assert await github.list_reviews(number) == [review]
    (comment,) = await github.list_review_comments(number)
    assert comment == ReviewCommentInfo(
        id=comment.id,
        review_id=review.id,
        path="app.py",
        line=2,
        original_line=2,
        side="RIGHT",
        body="why sys?",
        author=JOB_TOKEN_LOGIN,
        author_type="Bot",
        commit_id=HEAD,
        original_commit_id=HEAD,
        html_url=f"{WEB}/pull/{number}#discussion_r{comment.id}",
        diff_hunk="@@ -1,3 +1,4 @@\n import os\n+import sys",
    )
    outside = [InlineComment(path="app.py", line=40, body="out")]
    with pytest.raises(GitHubValidationError) as refused:
        await github.create_review(number, "x", "COMMENT", comments=outside)
    assert refused.value.message == (
        f"GitHub review pull #{number} failed: 422 Unprocessable Entity "
        "(Pull request review thread line must be part of the diff)"
    )
    with pytest.raises(GitHubValidationError) as bodiless:
        await github.create_review(number, "", "REQUEST_CHANGES")
    assert bodiless.value.message == (
        f"GitHub review pull #{number} failed: 422 Unprocessable Entity "
        "(Review Can not request_changes without a body)"
    )
    approval = await github.create_review(number, "", "APPROVE", commit_id="d" * 40)
    assert (approval.state, approval.commit_id) == ("APPROVED", "d" * 40)


async def test_threads_are_answered_listed_and_resolved(port: Port) -> None:
    github, state = port.github, port.state
    number = state.add_pull(REPO, head="feature", diff=DIFF, head_sha=HEAD)
    root = state.add_review_comment(REPO, number, user="alice", path="app.py", line=2, body="?")
    reply = await github.reply_to_review_comment(number, root, "Fixed in abc")
    assert (reply.in_reply_to_id, reply.path, reply.line, reply.author) == (
        root,
        "app.py",
        2,
        JOB_TOKEN_LOGIN,
    )
    with pytest.raises(GitHubValidationError) as nested:
        await github.reply_to_review_comment(number, reply.id, "again")
    assert nested.value.message == (
        f"GitHub reply to review comment {reply.id} failed: 422 Validation Failed "
        "(Replies to replies are not supported)"
    )
    (thread,) = await github.list_review_threads(number)
    assert (thread.is_resolved, thread.comment_ids) == (False, (root, reply.id))
    assert await github.resolve_review_thread(thread.id)
    assert [t.is_resolved for t in await github.list_review_threads(number)] == [True]
    assert [c.id for c in await github.list_review_comments(number)] == [root, reply.id]


async def test_more_threads_than_a_page_are_all_listed(port: Port) -> None:
    lines = 120
    diff = (
        "diff --git a/calc.py b/calc.py\n--- /dev/null\n+++ b/calc.py\n"
        f"@@ -0,0 +1,{lines} @@\n" + "".join(f"+x{n} = {n}\n" for n in range(1, lines + 1))
    )
    number = port.state.add_pull(REPO, head="feature", diff=diff)
    inline = [InlineComment(path="calc.py", line=n, body=f"x{n}") for n in range(1, lines + 1)]
    await port.github.create_review(number, "many", "COMMENT", comments=inline)
    threads = await port.github.list_review_threads(number)
    assert len(threads) == lines and len({t.id for t in threads}) == lines


async def test_github_refuses_threads_it_does_not_know_or_lets_no_one_resolve(
    port: Port,
) -> None:
    number = port.state.add_pull(REPO, head="feature", diff=DIFF)
    root = port.state.add_review_comment(REPO, number, user="a", path="app.py", line=2, body="?")
    (thread,) = await port.github.list_review_threads(number)
    port.state.forbid_resolving = True
    with pytest.raises(GitHubError) as forbidden:
        await port.github.resolve_review_thread(thread.id)
    assert type(forbidden.value) is GitHubError
    assert forbidden.value.message == (
        f"GitHub resolve review thread {thread.id} failed: 400 "
        "(Resource not accessible by integration)"
    )
    port.state.forbid_resolving = False
    with pytest.raises(GitHubNotFoundError) as unknown:
        await port.github.resolve_review_thread("PRRT_nope")
    said = "Could not resolve to a node with the global id of 'PRRT_nope'"
    assert unknown.value.message == (
        f"GitHub resolve review thread PRRT_nope failed: 404 {said} ({said})"
    )
    with pytest.raises(GitHubNotFoundError) as no_pull:
        await port.github.list_review_threads(99)
    said = f"Could not resolve to a Repository or PullRequest ({REPO})"
    assert no_pull.value.message == (
        f"GitHub list review threads of pull #99 failed: 404 {said} ({said})"
    )
    with pytest.raises(GitHubNotFoundError):
        await port.github.reply_to_review_comment(number, root + 999, "lost")
    assert port.retries == []


# retries -----------------------------------------------------------------------------------


async def test_server_errors_and_rate_limits_are_retried_as_github_asks(port: Port) -> None:
    number = port.state.add_issue(REPO, "Crash on start")
    await port.github.default_branch()
    issue = rf"/repos/{REPO}/issues/{number}"
    port.state.inject("GET", issue, Fault(), Fault(), Fault.retry_after(1))
    assert (await port.github.get_issue(number)).title == "Crash on start"
    assert [(r.operation, r.reason) for r in port.retries] == [
        (f"get issue #{number}", "502 Server Error"),
        (f"get issue #{number}", "502 Server Error"),
        (f"get issue #{number}", "429 Too Many Requests"),
    ]
    assert port.sleeps == [0.01, 0.02, 1.0]
    port.state.inject(
        "POST",
        rf"/repos/{REPO}/issues/\d+/comments",
        Fault.secondary_rate_limit(),
        Fault.rate_limit_reset(int(time.time()) + 3),
    )
    await port.github.create_comment(number, "hello")
    assert [r.reason for r in port.retries[3:]] == [
        "403 You have exceeded a secondary rate limit. Please wait a few minutes before you "
        "try again.",
        "403 API rate limit exceeded for installation.",
    ]
    assert [c.body for c in port.state.issue_comments(REPO, number)] == ["hello"]


async def test_a_failure_that_persists_or_asks_too_long_a_wait_ends_the_call(port: Port) -> None:
    number = port.state.add_issue(REPO, "t")
    port.state.inject("GET", rf"/repos/{REPO}/issues/{number}", *[Fault(status=503)] * 5)
    with pytest.raises(GitHubRetryExhaustedError) as exhausted:
        await port.github.get_issue(number)
    assert exhausted.value.message == (
        f"GitHub get issue #{number} failed after 5 attempt(s): 503 Server Error"
    )
    assert len(port.retries) == 4
    assert port.state.faults.pending() == 0
    port.state.inject("GET", rf"/repos/{REPO}/issues/{number}", Fault.retry_after(3600))
    with pytest.raises(GitHubRetryExhaustedError) as too_long:
        await port.github.get_issue(number)
    assert too_long.value.message == (
        f"GitHub get issue #{number} failed after 1 attempt(s): 429 Too Many Requests"
    )
    assert len(port.retries) == 4


async def test_a_reset_connection_and_a_failed_page_are_retried_where_they_failed(
    port: Port,
) -> None:
    for n in range(150):
        port.state.add_issue(REPO, f"issue {n}", labels=["amelia"])
    await port.github.default_branch()
    port.state.inject("GET", rf"/repos/{REPO}/pulls", Fault(kind="reset"))
    assert await port.github.find_open_pull("nothing") is None
    assert len(port.retries) == 1
    port.state.inject("GET", rf"/repos/{REPO}/issues", Fault(), Fault(), Fault())
    assert len(await port.github.list_labelled_issues("amelia")) == 150
    assert len(port.retries) == 4
    assert port.state.faults.pending() == 0


async def test_a_create_whose_answer_was_lost_is_made_once(port: Port) -> None:
    github, state = port.github, port.state
    number = state.add_pull(REPO, head="feature", diff=DIFF, head_sha=HEAD)
    root = state.add_review_comment(REPO, number, user="alice", path="app.py", line=2, body="?")
    lost = Fault(kind="lost", stall_seconds=0)
    state.inject("POST", rf"/repos/{REPO}/pulls", lost)
    state.inject("POST", rf"/repos/{REPO}/pulls/{number}/reviews", lost)
    state.inject("POST", rf"/repos/{REPO}/pulls/{number}/comments/{root}/replies", lost)

    pull = await github.create_pull("amelia/issue-1", "main", "Plan", "body", draft=True)
    review = await github.create_review(number, "Once", "COMMENT", commit_id=HEAD)
    reply = await github.reply_to_review_comment(number, root, "Once too")

    assert await github.find_open_pull("amelia/issue-1") == pull
    assert len(state.list_pulls(REPO, head="octo:amelia/issue-1")) == 1
    assert [r.id for r in await github.list_reviews(number) if r.body == "Once"] == [review.id]
    replies = [c for c in await github.list_review_comments(number) if c.in_reply_to_id]
    assert [c.id for c in replies] == [reply.id]
    assert [r.operation for r in port.retries] == [
        "open pull for amelia/issue-1",
        f"review pull #{number}",
        f"reply to review comment {root}",
    ]
