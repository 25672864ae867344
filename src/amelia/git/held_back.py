"""What a push to GitHub may carry: the files it would refuse are held back, the rest goes.

GitHub refuses a push that changes a workflow file (`.github/workflows/…`) when the token
has no permission to change workflows, and one that holds a file over 100 MiB (it warns
from 50 MiB). `hold_back` splits the paths of a change into those to commit and those to
hold back (with the reason), given what the token may push (`PushAllowance`); the held
files stay in the worktree as they are, uncommitted, so the next round, the test command
and the reviewer still see them. `held_back_diff` is their change against `HEAD`, as a
patch `git apply` takes.

When GitHub refuses a push all the same (the token's permission was not what amelia could
tell, a server with a lower size limit), `drop_from_unpushed` takes the files out of the
commits that were not pushed: those commits become one commit without them (message and
author of the last one), and the files stay in the worktree as they are.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from amelia.git.repo import head_sha, identity_args
from amelia.git.runner import run_git, run_git_bytes, run_git_paths
from amelia.git.value import Git, Repo

__all__ = [
    "MAX_FILE_BYTES",
    "WARN_FILE_BYTES",
    "WORKFLOWS_DIR",
    "HeldFile",
    "HeldReason",
    "PushAllowance",
    "drop_from_unpushed",
    "file_size",
    "held_back_diff",
    "hold_back",
    "is_workflow_file",
    "unpushed_paths",
]

WORKFLOWS_DIR = ".github/workflows/"
MAX_FILE_BYTES = 100 * 1024 * 1024
"""GitHub blocks files larger than 100 MiB (it says "100.00 MB")."""
WARN_FILE_BYTES = 50 * 1024 * 1024
"""GitHub warns about files larger than 50 MiB, and takes them."""

HeldReason = Literal["workflow", "too_large"]
_LITERAL = ("--literal-pathspecs",)
_DIFF = ("diff", "--binary", "--no-color", "--no-ext-diff", "--no-textconv", "--no-renames")


@dataclass(frozen=True)
class HeldFile:
    """A file of the change that was not pushed, and why."""

    path: str
    reason: HeldReason
    size: int | None
    """Its size in bytes (None: deleted)."""


@dataclass(kw_only=True)
class PushAllowance:
    """What the token may push.

    `workflows` says whether it may change workflow files: False holds them back, True
    pushes them, None (amelia cannot tell) pushes them and treats GitHub's refusal as
    foreseen. It is asked once, when a change first touches a workflow file (`ask`)."""

    ask: Callable[[], bool | None] = lambda: None
    max_file_bytes: int = MAX_FILE_BYTES
    refused: set[str] = field(default_factory=set)
    """Files GitHub refused by name: held back whatever the rules say."""
    _workflows: bool | None = None
    _asked: bool = False

    @property
    def workflows(self) -> bool | None:
        if not self._asked:
            self._workflows, self._asked = self.ask(), True
        return self._workflows

    def forbid_workflows(self) -> None:
        """GitHub refused a workflow file: hold every one back from now on."""
        self._workflows, self._asked = False, True


def is_workflow_file(path: str) -> bool:
    """True for a file GitHub treats as a workflow (anything under `.github/workflows/`)."""
    return path.startswith(WORKFLOWS_DIR)


def file_size(repo: Repo, path: str) -> int | None:
    """The size of the regular file `path` in the worktree (None: none there, a symlink or
    a folder); symlinks are never followed."""
    try:
        info = (Git.of(repo).path / path).lstat()
    except (FileNotFoundError, NotADirectoryError):
        return None
    return info.st_size if stat.S_ISREG(info.st_mode) else None


def hold_back(
    repo: Repo, paths: Sequence[str], allowance: PushAllowance
) -> tuple[list[str], list[HeldFile]]:
    """Split the changed `paths` into those a push may carry and those to hold back."""
    keep: list[str] = []
    held: list[HeldFile] = []
    for path in paths:
        size = file_size(repo, path)
        if size is not None and size > allowance.max_file_bytes:
            held.append(HeldFile(path, "too_large", size))
        elif path in allowance.refused:
            reason: HeldReason = "workflow" if is_workflow_file(path) else "too_large"
            held.append(HeldFile(path, reason, size))
        elif is_workflow_file(path) and allowance.workflows is False:
            held.append(HeldFile(path, "workflow", size))
        else:
            keep.append(path)
    return keep, held


def _in_head(repo: Repo, paths: Iterable[str]) -> set[str]:
    listed = run_git_paths([*_LITERAL, "ls-tree", "-z", "--name-only", "HEAD", "--", *paths], repo)
    return set(listed)


def held_back_diff(repo: Repo, paths: Sequence[str]) -> bytes:
    """The change of `paths` in the worktree against `HEAD` (new, changed or deleted), as
    one patch for `git apply` (binary files as binary patches)."""
    if not paths:
        return b""
    tracked = _in_head(repo, paths)
    parts = []
    in_head = [path for path in paths if path in tracked]
    if in_head:
        parts.append(run_git_bytes([*_LITERAL, *_DIFF, "HEAD", "--", *in_head], repo))
    for path in paths:
        if path not in tracked and (Git.of(repo).path / path).is_file():
            # `--no-index` exits 1 when the files differ, which is always the case here.
            args = [*_DIFF, "--no-index", "--", os.devnull, path]
            parts.append(run_git_bytes(args, repo, ok_codes=(0, 1)))
    return b"".join(parts)


def _unpushed(repo: Repo, branch: str, published: Sequence[str] | None) -> list[str]:
    if published is None:
        args, given = ["--not", "--remotes"], None
    else:
        args, given = ["--stdin"], "".join(f"^{sha}\n" for sha in published).encode()
    out = run_git(["rev-list", "--reverse", f"refs/heads/{branch}", *args], repo, input=given)
    return out.split()


def _base_of(repo: Repo, commits: Sequence[str]) -> str | None:
    out = run_git(["rev-parse", "--verify", "--quiet", f"{commits[0]}^"], repo, ok_codes=(0, 1))
    return out.strip() or None


def unpushed_paths(repo: Repo, branch: str, published: Sequence[str] | None) -> list[str]:
    """Every path the commits of `branch` that `published` (None: no remote-tracking ref)
    does not hold add, change or delete."""
    commits = _unpushed(repo, branch, published)
    if not commits:
        return []
    base = _base_of(repo, commits)
    if base is None:
        listing = ["ls-tree", "-r", "-z", "--name-only", f"refs/heads/{branch}"]
    else:
        listing = ["diff", "--name-only", "-z", "--no-renames", base, f"refs/heads/{branch}"]
    return run_git_paths(listing, repo)


def drop_from_unpushed(
    repo: Repo, branch: str, paths: Sequence[str], *, published: Sequence[str] | None
) -> str | None:
    """Make the unpushed commits of `branch` (checked out) one commit without `paths`,
    leaving those files in the worktree as they are; returns the new head, or None when
    nothing could be done (no unpushed commit, or the first one has no parent)."""
    commits = _unpushed(repo, branch, published)
    if not commits or not paths:
        return None
    base = _base_of(repo, commits)
    if base is None:
        return None
    last = commits[-1]
    run_git(["reset", "--quiet", "--soft", base], repo)
    # The index gets the base's version of each path (none, for a new file); the worktree
    # keeps the agents' version.
    run_git([*_LITERAL, "reset", "--quiet", base, "--", *paths], repo)
    staged = run_git(["diff", "--cached", "--name-only", "-z"], repo).strip("\0")
    if staged:
        args = ["commit", "--quiet", "--no-verify", f"--reuse-message={last}"]
        run_git([*identity_args(repo), *args], repo)
    return head_sha(repo)
