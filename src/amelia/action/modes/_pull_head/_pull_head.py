"""A pull request's head, fetched for review: checked out in the checkout, or kept as data.

`check_out_pull` (a `pull_request` run, or `/amelia review`: the checkout is ours to move)
fetches base and head and checks the head out detached in the checkout itself.

Both fetch with the `remote` value they are given (the one that may carry the token) and
do everything else with the checkout's own `Git` value, which the `PullHead` keeps for
the reviewer's git.

`head_as_data` is for runs that hold the repository's secrets while the head comes from
someone without write access (`pull_request_target`): the head must never run. The
checkout stays exactly where actions/checkout left it (the base): the head's commits are
fetched into its object store under a private ref, and nothing of them is checked out
there. The head's files are written into a separate directory, a repository of its own
that borrows the checkout's objects (`objects/info/alternates`) and whose configuration
amelia writes: no hook (`core.hooksPath=/dev/null`, and an empty template, so not even
sample hooks), no file system monitor, symbolic links written as plain files holding
their target (`core.symlinks=false`, so no tool reading the directory follows one out of
it). Nothing in that directory is ever built, installed or run by amelia, and the agent
that reads it gets file-reading tools only.

In both, files that steer agents are put back as the merge base has them
(`amelia.action.modes._steering`).
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path

from amelia.action.modes._steering import restore_steering_files
from amelia.errors import GitError
from amelia.git import (
    Git,
    Repo,
    check_out_detached,
    fetch,
    head_sha,
    is_shallow,
    merge_base_deepening,
    run_git,
    validate_branch_name,
)
from amelia.github.models import PullInfo

__all__ = ["HEAD_REF", "HEAD_REPOSITORY_CONFIG", "PullHead", "check_out_pull", "head_as_data"]

HEAD_REF = "refs/amelia/review-head"
"""Where the head's commits are kept in the checkout's repository."""

HEAD_REPOSITORY_CONFIG: dict[str, str] = {
    "core.hooksPath": "/dev/null",
    "core.fsmonitor": "false",
    "core.symlinks": "false",
    "core.autocrlf": "false",
    "commit.gpgSign": "false",
}
"""The configuration amelia writes into the head's own repository."""


@dataclass(frozen=True)
class PullHead:
    """Where the reviewer reads the pull's head, and which commits it covers."""

    git: Git
    """amelia's git in the work tree holding the head: the checkout itself, or a separate
    directory (with the checkout's configuration, never the token)."""
    head_sha: str
    """The pull's head as fetched (before steering files were reset)."""
    merge_base: str
    restored: tuple[str, ...]
    """Steering paths reset to the base's version."""
    as_data: bool = field(default=False, kw_only=True)
    """True when the head was kept out of the checkout (`head_as_data`)."""

    @property
    def directory(self) -> Path:
        """The work tree holding the head."""
        return self.git.path


def _fetch_pull(repo: Repo, pull: PullInfo, *, branch_fallback: bool) -> tuple[str, str]:
    """Fetch the pull's base and head into `repo`: (head commit, merge base)."""
    base = validate_branch_name(pull.base_ref)
    base_tracking = f"refs/remotes/origin/{base}"
    base_spec = f"+refs/heads/{base}:{base_tracking}"
    head_spec = f"+refs/pull/{pull.number}/head:{HEAD_REF}"
    try:
        fetch(repo, [base_spec, head_spec])
    except GitError:
        if not branch_fallback:
            raise
        # Not every remote serves pull refs (a plain git server, a mirror): use the branch.
        head_spec = f"+refs/heads/{validate_branch_name(pull.head_ref)}:{HEAD_REF}"
        fetch(repo, [base_spec, head_spec])
    head = head_sha(repo, ref=HEAD_REF)
    # actions/checkout fetches one commit by default: fetch what the merge base needs.
    base_commit = merge_base_deepening(repo, base_tracking, head, refspecs=[base_spec, head_spec])
    return head, base_commit


def check_out_pull(repo: Repo, pull: PullInfo, *, remote: Repo | None = None) -> PullHead:
    """Fetch the pull's base and head (through `remote`, default `repo`), check the head
    out detached, reset steering files."""
    head, base_commit = _fetch_pull(repo if remote is None else remote, pull, branch_fallback=True)
    check_out_detached(repo, head)
    restored = restore_steering_files(repo, base_commit)
    return PullHead(Git.of(repo), head, base_commit, tuple(restored))


def _git_path(repo: Repo, name: str) -> Path:
    out = run_git(["rev-parse", "--path-format=absolute", "--git-path", name], repo)
    return Path(out.strip())


def _head_repository(checkout: Git, directory: Path) -> Git:
    """An empty repository at `directory` that reads the checkout's objects; amelia's git
    there, with the checkout's configuration."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    # An empty template: git copies no hook, not even the inactive samples.
    template = directory.parent / f".{directory.name}-template"
    template.mkdir(exist_ok=True)
    run_git(["init", "--quiet", f"--template={template}", str(directory)], checkout, outside=True)
    template.rmdir()
    git_dir = directory / ".git"
    head = checkout.at(directory)
    for key, value in HEAD_REPOSITORY_CONFIG.items():
        run_git(["config", "--local", key, value], head)
    alternates = git_dir / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(f"{_git_path(checkout, 'objects')}\n", encoding="utf-8")
    if is_shallow(checkout):
        # The checkout's history ends at its shallow boundary; so does the borrowed one.
        shutil.copyfile(_git_path(checkout, "shallow"), git_dir / "shallow")
    return head


def head_as_data(
    checkout: Repo, pull: PullInfo, directory: Path, *, remote: Repo | None = None
) -> PullHead:
    """Fetch the pull's head (through `remote`, default `checkout`) into `checkout`'s
    object store only (its work tree, index and HEAD stay as they are) and write the head's
    files into `directory` (see the module docstring). Only the pull ref is fetched: a
    fork's branch is not on origin."""
    fetched = checkout if remote is None else remote
    head, base_commit = _fetch_pull(fetched, pull, branch_fallback=False)
    git = _head_repository(Git.of(checkout), directory)
    check_out_detached(git, head)
    restored = restore_steering_files(git, base_commit)
    return PullHead(git, head, base_commit, tuple(restored), as_data=True)
