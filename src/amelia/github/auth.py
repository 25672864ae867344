"""Who may start a run: people with write access or better, or listed by the maintainers."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from loguru import logger
from pydantic import BaseModel, ConfigDict

from amelia.errors import GitHubError

if TYPE_CHECKING:
    from amelia.github.port import GitHubReads

__all__ = ["TRUSTED_ROLES", "Decision", "may_trigger"]


TRUSTED_ROLES = frozenset({"admin", "maintain", "write"})


class Decision(BaseModel):
    model_config = ConfigDict(frozen=True)

    allowed: bool
    reason: str
    checked: bool = True
    """False when GitHub could not tell the role: a failure, not a refusal."""


async def may_trigger(
    github: GitHubReads, user: str, *, allowed_users: Iterable[str] = ()
) -> Decision:
    """Whether `user` may start a run; `reason` is short and fit to post as a reply."""
    if user.lower() in {name.strip().lower() for name in allowed_users}:
        return Decision(allowed=True, reason=f"@{user} is listed in allowed_users")
    try:
        role = await github.get_permission(user)
    except GitHubError as error:
        logger.warning("permission check for {} failed: {}", user, error.message)
        return Decision(
            allowed=False,
            reason=f"Sorry @{user}, I could not check your permission; please try again later.",
            checked=False,
        )
    if role in TRUSTED_ROLES:
        return Decision(allowed=True, reason=f"@{user} has {role} permission")
    return Decision(
        allowed=False,
        reason=(
            f"Sorry @{user}, only people with write access to this repository can ask me to "
            "work. A maintainer can run the command for you."
        ),
    )
