"""What GitHub tells about the token, read by the real PyGithub from the local GitHub: the
`X-OAuth-Scopes` header of a classic token, who it acts as for any other; and what that
lets amelia push."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from amelia.action.checkout._held_back import workflow_permission, workflow_permission_asker
from amelia.github.client import GitHubClient
from amelia.github.options import RetryPolicy
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts, may_push_workflows
from amelia.testing.github import GitHubState, InMemoryGitHub
from amelia.testing.github_server import FakeGitHubServer, Fault

REPO = "octo/app"


@pytest.fixture
def server() -> Iterator[FakeGitHubServer]:
    with FakeGitHubServer() as fake:
        fake.add_repo(REPO)
        yield fake


def _client(server: FakeGitHubServer) -> GitHubClient:
    policy = RetryPolicy(max_attempts=2, max_total_wait=1, backoff_base=0.01)
    return GitHubClient("t", REPO, base_url=server.url, policy=policy, throttle=False)


async def test_the_jobs_token_acts_as_github_actions_and_may_not_push_workflows(
    server: FakeGitHubServer,
) -> None:
    facts = await _client(server).token_facts()
    assert facts == TokenFacts(login=JOB_TOKEN_LOGIN, scopes=None)
    assert may_push_workflows(facts) is False
    graphql = [r for r in server.requests if r.path == "/graphql"]
    assert len(graphql) == 1 and "viewer" in str(graphql[0].body)


@pytest.mark.parametrize(
    ("scopes", "allowed"),
    [(("repo", "workflow"), True), (("repo",), False), ((), False)],
    ids=["workflow-scope", "repo-only", "no-scope"],
)
async def test_a_classic_tokens_scopes_decide(
    server: FakeGitHubServer, scopes: tuple[str, ...], allowed: bool
) -> None:
    server.oauth_scopes = scopes
    facts = await _client(server).token_facts()
    assert facts.scopes == scopes
    assert may_push_workflows(facts) is allowed
    assert [r for r in server.requests if r.path == "/graphql"] == []


async def test_an_app_token_does_not_tell(server: FakeGitHubServer) -> None:
    server.token_user.login = "acme-builder[bot]"
    facts = await _client(server).token_facts()
    assert facts.login == "acme-builder[bot]"
    assert may_push_workflows(facts) is None


async def test_when_github_cannot_be_asked_amelia_cannot_tell(server: FakeGitHubServer) -> None:
    server.inject("GET", rf"/repos/{REPO}", Fault(status=403, message="Forbidden"))
    assert await workflow_permission(_client(server)) is None


async def test_the_push_asks_from_its_worker_thread_and_the_port_answers_on_the_loop() -> None:
    state = GitHubState()
    state.add_repo(REPO)
    state.oauth_scopes = ("repo", "workflow")
    ask = workflow_permission_asker(InMemoryGitHub(state, REPO))

    assert await asyncio.to_thread(ask) is True
    with pytest.raises(RuntimeError, match="worker thread"):
        ask()  # on the event loop's own thread it would wait for itself
