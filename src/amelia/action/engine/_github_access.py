"""The run's GitHub, and whether the person who asked may make amelia act."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from amelia.config import Settings
from amelia.errors import ConfigError, GitHubError
from amelia.github.events import (
    Command,
    Event,
    IssueCommentEvent,
    IssuesEvent,
    PullRequestReviewCommentEvent,
)
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.github.port import GitHubPort

__all__ = ["open_client", "refusal"]


def open_client(
    settings: Settings,
    repo: str,
    *,
    dry_run: bool,
    github: GitHubPort | None = None,
    stream: TextIO | None = None,
) -> GitHubPort:
    """GitHub for `repo` with the settings' token, API URL and tuning (or `github`, a port
    handed in instead); in a dry run, one that reads from it and records writes under the
    dry-run directory (and prints them on `stream`, default stdout) instead of making
    them."""
    from amelia.github.client import GitHubClient
    from amelia.github.dry_run import DryRunGitHub

    token = settings.github_token
    if not token:
        raise ConfigError(
            "no GitHub token: set the github_token input (INPUT_GITHUB_TOKEN) or GITHUB_TOKEN"
        )
    if github is None:
        tuning: dict[str, Any] = {
            "policy": settings.github_retry,
            "timeout": settings.github_timeout,
            "throttle": settings.github_throttle,
        }
        api_url = settings.runner.api_url
        github = GitHubClient(token=token, repo=repo, base_url=api_url, **tuning)
    if dry_run:
        return DryRunGitHub(github, directory=settings.dry_run_dir, stream=stream)
    return github


def _is_human_trigger(event: Event) -> bool:
    # Dispatch and schedule need write access to start at all; comments and labels do not.
    return isinstance(event, (IssueCommentEvent, IssuesEvent, PullRequestReviewCommentEvent))


async def refusal(
    github: GitHubPort,
    command: Command,
    event: Event,
    allowed_users: tuple[str, ...],
    redactor: Redactor,
) -> str | None:
    """Why the person who asked may not make amelia act (already told so on the issue), or
    None when they may. Raises `GitHubError` when their permission cannot be checked."""
    from amelia.github.auth import may_trigger

    who = command.requested_by
    if not who or not _is_human_trigger(event):
        return None
    decision = await may_trigger(github, who, allowed_users=allowed_users)
    if decision.allowed:
        return None
    if command.number is not None:
        from amelia.action.modes._replies import post_where_asked
        from amelia.github.comments import render_reply  # only a refusal needs the renderers

        await post_where_asked(github, command, render_reply(decision.reason, redactor))
    if not decision.checked:
        raise GitHubError(f"could not check the permission of @{who} (see the log)")
    return decision.reason
