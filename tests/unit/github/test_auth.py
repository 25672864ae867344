from __future__ import annotations

import pytest

from amelia.github.auth import may_trigger
from amelia.github.options import RetryPolicy
from amelia.testing.github import Fault, GitHubState, InMemoryGitHub

REPO = "octo/app"


def _github(roles: dict[str, str], *, policy: RetryPolicy | None = None) -> InMemoryGitHub:
    state = GitHubState()
    state.add_repo(REPO)
    for login, role in roles.items():
        state.set_permission(REPO, login, role)
    return InMemoryGitHub(state, REPO, policy=policy)


def _fail_permission_checks(github: InMemoryGitHub) -> None:
    github.state.inject("GET", rf"/repos/{REPO}/collaborators/.*/permission", Fault(status=502))


@pytest.mark.parametrize(
    ("role", "allowed"),
    [
        ("admin", True),
        ("maintain", True),
        ("write", True),
        ("triage", False),
        ("read", False),
        ("none", False),
    ],
)
async def test_roles(role: str, allowed: bool) -> None:
    decision = await may_trigger(_github({"alice": role}), "alice")
    assert decision.allowed is allowed
    if not allowed:
        assert decision.reason.startswith("Sorry @alice")
        assert len(decision.reason) < 200


async def test_allowed_users_are_case_insensitive_and_skip_the_lookup() -> None:
    github = _github({})
    _fail_permission_checks(github)
    assert (await may_trigger(github, "Bob", allowed_users=[" bob ", "carol"])).allowed
    assert github.state.faults.pending() == 1  # GitHub was not asked


async def test_lookup_failure_refuses_politely() -> None:
    github = _github({}, policy=RetryPolicy(max_attempts=1))
    _fail_permission_checks(github)
    decision = await may_trigger(github, "dave")
    assert not decision.allowed
    assert "could not check your permission" in decision.reason
    assert not decision.checked
