"""The repository's configuration in the Action: read from a trusted commit through the API.

Issue commands and scans read `.github/amelia.yml` (and the instruction files) from the
default branch; reviews from the pull request's base branch, or the default branch when
the base is one of amelia's own branches. Never from the pull request's head or from an
amelia branch: a change cannot reconfigure its own review, and an agent's work cannot
reconfigure the next run. An invalid file stops the run before any model request, with
one reply on the issue or pull request.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from amelia.github.events import Command, Event, PullRequestEvent
from amelia.redaction import Redactor
from amelia.repo_config import (
    RepoConfigError,
    TrustedFiles,
    instruction_files_for,
    load_trusted_files,
    parse_repo_config,
)
from amelia.repo_config.model import ReviewConfig

if TYPE_CHECKING:
    from collections.abc import Collection

    from amelia.core.types import Profile
    from amelia.github.port import GitHubPort, GitHubReads
    from amelia.repo_config import RepoConfig

__all__ = ["automatic_review_skip", "read_trusted_files", "trusted_ref"]


def _is_amelia_branch(branch: str, prefix: str) -> bool:
    if prefix:
        return branch.startswith(prefix)
    return re.fullmatch(r"issue-\d+", branch) is not None


async def trusted_ref(
    github: GitHubReads, command: Command, event: Event, *, branch_prefix: str
) -> str:
    """The branch whose files configure this run (see the module docstring)."""
    default = event.repository.default_branch if event.repository else None
    if not default:
        default = str(await github.default_branch())
    if command.kind != "review" or command.number is None:
        return default
    if isinstance(event, PullRequestEvent) and event.pull_request.number == command.number:
        base = event.pull_request.base.ref
    else:
        base = (await github.get_pull(command.number)).base_ref
    return default if _is_amelia_branch(base, branch_prefix) else base


async def read_trusted_files(
    github: GitHubPort,
    command: Command,
    event: Event,
    *,
    config_file: str,
    branch_prefix: str,
    base: Profile,
    explicit: Collection[str],
    redactor: Redactor,
) -> TrustedFiles:
    """The configuration and instruction files at the trusted ref. An invalid configuration
    is told on the issue or pull request, then raised (`RepoConfigError`, exit code 2)."""
    ref = await trusted_ref(github, command, event, branch_prefix=branch_prefix)
    try:
        return await _load(github, ref, config_file, command, event, base, explicit)
    except RepoConfigError as error:
        if command.number is not None:
            from amelia.github.comments import render_reply

            text = (
                f"I did not start: the configuration on `{ref}` is invalid.\n\n"
                f"`{error.message}`\n\nFix it on `{ref}` and ask again."
            )
            await github.create_comment(command.number, render_reply(text, redactor))
        raise


async def _load(
    github: GitHubReads,
    ref: str,
    config_file: str,
    command: Command,
    event: Event,
    base: Profile,
    explicit: Collection[str],
) -> TrustedFiles:
    """`load_trusted_files` over the files at `ref`, each read from GitHub before it is
    asked for: the configuration, then (unless nothing will run) the instruction files it
    names, in its order. Raises `RepoConfigError`."""
    instruction_files = instruction_files_for(base, explicit=explicit)

    def stop(config: RepoConfig) -> bool:
        return automatic_review_skip(config.review, command, event) is not None

    files: dict[str, bytes | None] = {config_file: await github.get_file(config_file, ref)}
    config = parse_repo_config(files[config_file], source=config_file)
    if not stop(config):
        for name in dict.fromkeys(instruction_files(config)):
            files.setdefault(name, await github.get_file(name, ref))

    def read(name: str) -> bytes | None:
        if name not in files:
            raise RuntimeError(f"{name} was not read from GitHub before it was asked for")
        return files[name]

    return load_trusted_files(
        read,
        config_file=config_file,
        where=ref,
        instruction_files=instruction_files,
        stop=stop,
    )


def _listed(login: str, logins: tuple[str, ...]) -> bool:
    return login.lower() in {name.lower() for name in logins}


def automatic_review_skip(review: ReviewConfig, command: Command, event: Event) -> str | None:
    """Why an automatic review (a `pull_request` event) is not made, or None.

    A pull request opened or updated by a bot is reviewed only when the bot is listed in
    `review.allowed_bots`; one by an author in `review.skip_authors` never automatically
    (`/amelia review` still works: a comment is no automatic review).
    """
    if command.kind != "review" or not isinstance(event, PullRequestEvent):
        return None
    author = event.pull_request.user
    for role, actor in (("sender", event.sender), ("author", author)):
        if actor is not None and actor.is_bot and not _listed(actor.login, review.allowed_bots):
            return f"pull request {role} {actor.login} is a bot not listed in review.allowed_bots"
    if author is not None and _listed(author.login, review.skip_authors):
        return f"pull request author {author.login} is listed in review.skip_authors"
    return None
