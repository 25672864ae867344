"""The fake GitHub server speaks the wire format PyGithub expects (checked with PyGithub itself)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from github import GithubException

from amelia.testing.github_server import FakeGitHubServer, Fault
from tests.integration.github.conftest import Origin, pygithub


@pytest.fixture
def server() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as fake:
        fake.add_repo("octo/app")
        yield fake


def test_requests_are_recorded_with_auth_header_query_and_body(server: FakeGitHubServer) -> None:
    number = server.add_issue("octo/app", "t")
    issue = pygithub(server, token="secret-token").get_repo("octo/app").get_issue(number)
    issue.create_comment("hello")
    post = server.requests_to("POST", r"/repos/octo/app/issues/1/comments")[0]
    assert post.body == {"body": "hello"}
    assert post.headers["authorization"] == "token secret-token"
    assert issue.user.login == "octocat" and issue.user.type == "User"


def test_issue_listing_filters_labels_and_follows_link_headers(server: FakeGitHubServer) -> None:
    for n in range(75):
        server.add_issue("octo/app", f"i{n}", labels=["amelia", "bug"] if n % 3 == 0 else ["bug"])
    repo = pygithub(server, per_page=10).get_repo("octo/app")
    labelled = list(repo.get_issues(state="open", labels=["amelia"]))
    assert len(labelled) == 25
    assert all("amelia" in [label.name for label in i.labels] for i in labelled)
    pages = server.requests_to("GET", "/repos/octo/app/issues")
    assert len(pages) == 3
    assert pages[1].query["page"] == ["2"] and pages[1].query["labels"] == ["amelia"]


def test_link_header_matches_githubs_format(server: FakeGitHubServer) -> None:
    for n in range(5):
        server.add_issue("octo/app", f"i{n}", labels=["x"])
    url = f"{server.url}/repos/octo/app/issues?labels=x&per_page=2&page=2"
    with urllib.request.urlopen(url) as response:
        link = response.headers["Link"]
        body = json.loads(response.read())
    assert [issue["number"] for issue in body] == [3, 2]
    base = f"<{server.url}/repos/octo/app/issues?labels=x&per_page=2&page="
    assert link == (
        f'{base}1>; rel="prev", {base}1>; rel="first", {base}3>; rel="next", {base}3>; rel="last"'
    )


def test_issue_listing_sorts_like_github_and_counts_reactions(server: FakeGitHubServer) -> None:
    first = server.add_issue(
        "octo/app", "a", labels=["x"], created_at="2024-01-01T00:00:00Z", reactions={"+1": 3}
    )
    # Numbered later, created earlier (an issue transferred from another repository).
    moved = server.add_issue("octo/app", "b", labels=["x"], created_at="2023-06-01T00:00:00Z")
    last = server.add_issue("octo/app", "c", labels=["x"], created_at="2025-01-01T00:00:00Z")
    repo = pygithub(server).get_repo("octo/app")

    default = [i.number for i in repo.get_issues(labels=["x"])]
    oldest_first = list(repo.get_issues(labels=["x"], sort="created", direction="asc"))

    assert default == [last, first, moved]  # GitHub's default: created, newest first
    assert [i.number for i in oldest_first] == [moved, first, last]
    assert oldest_first[1].raw_data["reactions"]["+1"] == 3
    assert oldest_first[1].raw_data["reactions"]["total_count"] == 3
    assert oldest_first[0].raw_data["reactions"]["+1"] == 0


@pytest.mark.parametrize("query", ["sort=popularity", "direction=up", "state=merged"])
def test_issue_listing_refuses_what_github_does_not_take(
    server: FakeGitHubServer, query: str
) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server.url}/repos/octo/app/issues?{query}")
    assert refused.value.code == 422


def test_users_and_permissions(server: FakeGitHubServer) -> None:
    server.set_permission("octo/app", "alice", "admin")
    gh = pygithub(server)
    assert gh.get_user().login == "github-actions[bot]"
    assert gh.get_user("alice").login == "alice"
    repo = gh.get_repo("octo/app")
    assert repo.get_collaborator_permission("alice") == "admin"
    server.set_permission("octo/app", "alice", "maintain")
    assert repo.get_collaborator_permission("alice") == "write"
    assert repo.get_collaborator_role_name("alice") == "maintain"
    with pytest.raises(GithubException) as caught:
        gh.get_user("ghost").login  # noqa: B018
    assert caught.value.status == 404


def test_comment_edit_list_and_delete(server: FakeGitHubServer) -> None:
    number = server.add_issue("octo/app", "t")
    issue = pygithub(server).get_repo("octo/app").get_issue(number)
    first = issue.create_comment("one")
    issue.create_comment("two")
    first.edit("one, edited")
    assert [c.body for c in issue.get_comments()] == ["one, edited", "two"]
    first.delete()
    assert server.comments("octo/app", number) == ["two"]


def test_pull_files_draft_listing_and_update(server: FakeGitHubServer) -> None:
    diff = "--- a/x.py\n+++ b/x.py\n@@ -1 +1,2 @@\n a\n+b\n"
    number = server.add_pull("octo/app", head="feature", draft=True, diff=diff)
    repo = pygithub(server).get_repo("octo/app")
    pull = repo.get_pull(number)
    assert pull.draft and pull.head.ref == "feature" and pull.base.ref == "main"
    assert [(f.filename, f.additions) for f in pull.get_files()] == [("x.py", 1)]
    assert [p.number for p in repo.get_pulls(state="open", head="octo:feature")] == [number]
    assert list(repo.get_pulls(state="open", head="octo:other")) == []
    pull.edit(title="Renamed")
    assert repo.get_pull(number).title == "Renamed"


def test_branches_come_from_the_bare_repository(origin: Origin) -> None:
    with FakeGitHubServer() as server:
        server.add_repo("octo/app", bare_path=origin.bare)
        repo = pygithub(server).get_repo("octo/app")
        assert repo.clone_url == str(origin.bare)
        assert repo.get_branch("main").name == "main"
        with pytest.raises(GithubException) as caught:
            repo.get_branch("missing")
        assert caught.value.status == 404


def test_faults_are_served_in_order_then_normal_answers(server: FakeGitHubServer) -> None:
    server.inject("GET", "/user", Fault.secondary_rate_limit(), Fault(status=500))
    gh = pygithub(server)
    with pytest.raises(GithubException) as first:
        gh.get_user().login  # noqa: B018
    assert first.value.status == 403
    assert "secondary rate limit" in str(first.value.data)
    with pytest.raises(GithubException) as second:
        gh.get_user().login  # noqa: B018
    assert second.value.status == 500
    assert gh.get_user().login == "github-actions[bot]"


def test_requests_held_together_are_answered_once_the_last_one_arrives(
    server: FakeGitHubServer,
) -> None:
    server.inject("GET", "/user", *Fault.held_together(2))
    made_when_answered: list[int] = []

    def first() -> str:
        login = pygithub(server).get_user().login
        made_when_answered.append(len(server.requests_to("GET", "/user")))
        return login

    with ThreadPoolExecutor(max_workers=1) as pool:
        held = pool.submit(first)
        while not server.requests_to("GET", "/user"):
            time.sleep(0.01)
        assert pygithub(server).get_user().login == "github-actions[bot]"
        assert held.result(timeout=30) == "github-actions[bot]"
    assert made_when_answered == [2]


def test_unknown_route_is_404(server: FakeGitHubServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(f"{server.url}/nope")
    assert caught.value.code == 404


def test_big_pulls_are_answered_like_github(server: FakeGitHubServer) -> None:
    """406 `too_large` for a diff over 20,000 lines; at most 3,000 files listed."""
    header = "diff --git a/f{0} b/f{0}\nnew file mode 100644\n--- /dev/null\n+++ b/f{0}\n"
    diff = "".join(header.format(n) + "@@ -0,0 +1,2 @@\n+x\n+y\n" for n in range(3_001))
    number = server.add_pull("octo/app", head="bulk", diff=diff)

    def get(query: str, accept: str = "application/vnd.github+json") -> bytes:
        request = urllib.request.Request(
            f"{server.url}/repos/octo/app/pulls/{number}{query}",
            headers={"Accept": accept, "Authorization": "token t"},
        )
        with urllib.request.urlopen(request) as answer:
            return bytes(answer.read())

    last_page = json.loads(get("/files?per_page=100&page=30"))
    assert [f["filename"] for f in last_page] == [f"f{n}" for n in range(2_900, 3_000)]
    assert json.loads(get("/files?per_page=100&page=31")) == []
    with pytest.raises(urllib.error.HTTPError) as refused:
        get("", accept="application/vnd.github.diff")
    assert refused.value.code == 406
    answer = json.loads(refused.value.read())
    assert answer["message"] == "Sorry, the diff exceeded the maximum number of lines (20000)"
    assert answer["errors"] == [{"resource": "PullRequest", "field": "diff", "code": "too_large"}]
