"""Commits made by the bot: chosen paths, with an optional co-author (the agents' work is
committed by `amelia.git.commit_changes`, which knows what was there before them).

Every commit is made by amelia[bot] through options of that one command
(`amelia.git.repo.identity_args`): no configuration is read or written for it.
"""

from __future__ import annotations

from collections.abc import Sequence

from loguru import logger

from amelia.git.repo import head_sha, identity_args
from amelia.git.runner import display_path, run_git, run_git_paths
from amelia.git.value import Git, Repo

__all__ = ["commit_message", "commit_paths"]


def commit_message(message: str, *, co_author: str | None = None) -> str:
    """`message`, with a `Co-authored-by` trailer when `co_author` ("Name <email>") is given."""
    if co_author:
        return f"{message.rstrip()}\n\nCo-authored-by: {co_author}"
    return message


def _ignored(repo: Repo, paths: Sequence[str]) -> list[str]:
    """Those of `paths` that are untracked and that a `.gitignore` (or `info/exclude`) names:
    a plain `git add` refuses them."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--", *paths]
    return run_git_paths(args, repo)


def commit_paths(
    repo: Repo,
    paths: Sequence[str],
    message: str,
    *,
    co_author: str | None = None,
    force: bool = False,
) -> str:
    """Commit `paths` and nothing else: those in the worktree as they are there, those
    already staged (e.g. removed with `git rm`) as staged. Returns HEAD, unchanged when
    none of the paths has a change.

    With `force`, paths the repository ignores are added all the same (`git add -f`): for
    paths amelia chose itself, such as the plan file under an ignored `docs/`."""
    present = [path for path in paths if (Git.of(repo).path / path).exists()]
    if present:
        if force:
            for path in _ignored(repo, present):
                logger.warning(
                    "{} is ignored by the repository's .gitignore; amelia chose that path, "
                    "so it is added with `git add -f`",
                    display_path(path),
                )
        run_git(["add", *(["--force"] if force else []), "--", *present], repo)
    if run_git(["diff", "--cached", "--name-only", "-z", "--", *paths], repo).strip("\0"):
        message = commit_message(message, co_author=co_author)
        args = ["commit", "--quiet", "--no-verify", "-m", message, "--", *paths]
        run_git([*identity_args(repo), *args], repo)
    return head_sha(repo)
