from __future__ import annotations

import pytest

from amelia.errors import GitHubRetryExhaustedError
from amelia.github.auth import may_trigger


class Roles:
    def __init__(self, roles: dict[str, str], fail: bool = False) -> None:
        self.roles = roles
        self.fail = fail
        self.asked: list[str] = []

    def get_permission(self, user: str) -> str:
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
def test_roles(role: str, allowed: bool) -> None:
    decision = may_trigger(Roles({"alice": role}), "alice")
    assert decision.allowed is allowed
    if not allowed:
        assert decision.reason.startswith("Sorry @alice")
        assert len(decision.reason) < 200


def test_allowed_users_are_case_insensitive_and_skip_the_lookup() -> None:
    roles = Roles({})
    assert may_trigger(roles, "Bob", allowed_users=[" bob ", "carol"]).allowed
    assert roles.asked == []


def test_lookup_failure_refuses_politely() -> None:
    decision = may_trigger(Roles({}, fail=True), "dave")
    assert not decision.allowed
    assert "could not check your permission" in decision.reason
