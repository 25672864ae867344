from __future__ import annotations

from typing import cast

import pytest

from amelia.errors import GitHubRetryExhaustedError
from amelia.github.auth import may_trigger
from amelia.github.port import GitHubReads


class Roles:
    def __init__(self, roles: dict[str, str], fail: bool = False) -> None:
        self.roles = roles
        self.fail = fail
        self.asked: list[str] = []

    async def get_permission(self, user: str) -> str:
        self.asked.append(user)
        if self.fail:
            raise GitHubRetryExhaustedError("GitHub get permission failed after 5 attempt(s): 502")
        return self.roles.get(user, "none")


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
    decision = await may_trigger(cast(GitHubReads, Roles({"alice": role})), "alice")
    assert decision.allowed is allowed
    if not allowed:
        assert decision.reason.startswith("Sorry @alice")
        assert len(decision.reason) < 200


async def test_allowed_users_are_case_insensitive_and_skip_the_lookup() -> None:
    roles = Roles({})
    github = cast(GitHubReads, roles)
    assert (await may_trigger(github, "Bob", allowed_users=[" bob ", "carol"])).allowed
    assert roles.asked == []


async def test_lookup_failure_refuses_politely() -> None:
    decision = await may_trigger(cast(GitHubReads, Roles({}, fail=True)), "dave")
    assert not decision.allowed
    assert "could not check your permission" in decision.reason
