"""What was in a worktree before the agents ran, so only their work is committed.

Earlier steps of a job leave files in the checkout: credentials written by an auth action
(`gha-creds-*.json`), an `.npmrc` with a token, build output, a tracked file they edited.
None of that is the agents' work. `WorktreeBaseline.capture()` records, before the first
agent runs, every path that is untracked or differs from HEAD (and every file the
repository ignores) with a digest of its content; `changes()` later names the paths the
agents created, changed or deleted since, and `commit_changes()` commits exactly those,
leaving the earlier files as they are on disk.

Files whose names mark them as credentials (`SECRET_FILE_PATTERNS`) are never committed,
even when an agent wrote them: they are returned as withheld, for the run to report.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from amelia.git.commits import commit_message
from amelia.git.repo import head_sha, identity_args
from amelia.git.runner import run_git, run_git_paths
from amelia.git.value import Git, Repo

__all__ = [
    "SECRET_FILE_PATTERNS",
    "AgentChanges",
    "WorktreeBaseline",
    "WorktreeListing",
    "commit_changes",
    "is_secret_file",
    "secret_files",
]

SECRET_FILE_PATTERNS = (
    ".npmrc",
    ".pypirc",
    ".netrc",
    ".git-credentials",
    "gha-creds-*.json",
    "*.pem",
    "*.p12",
    "*.pfx",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    ".env*",
)
"""File names (any folder) that hold credentials: package registry tokens, cloud
credentials written by an auth action, private keys and certificates, environment files."""

_CHUNK = 1 << 20
_LITERAL = ("--literal-pathspecs",)
"""Paths are names, never pathspec magic (`:(glob)*` would match every file)."""


def is_secret_file(path: str) -> bool:
    """True when the name of `path` marks it as holding credentials (see
    `SECRET_FILE_PATTERNS`)."""
    name = PurePosixPath(path).name
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in SECRET_FILE_PATTERNS)


def _digest(path: Path) -> str | None:
    """The content of `path` as one word: a hash of a file's bytes, a symlink's target, a
    marker for a folder; None when nothing is there. Symlinks are never followed."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "link:" + str(path.readlink())
    if stat.S_ISDIR(info.st_mode):
        return "dir"
    if not stat.S_ISREG(info.st_mode):
        return f"special:{stat.S_IFMT(info.st_mode)}"
    digest = hashlib.sha256()
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(descriptor, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    mode = "x" if info.st_mode & stat.S_IXUSR else "-"
    return f"file:{mode}:{digest.hexdigest()}"


def _untracked(repo: Repo) -> list[str]:
    return run_git_paths(["ls-files", "-z", "--others", "--exclude-standard"], repo)


def _ignored(repo: Repo) -> list[str]:
    """Untracked paths the repository ignores; an ignored folder as one `folder/` entry."""
    args = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
    return run_git_paths(args, repo)


def _differing(repo: Repo) -> list[str]:
    """Tracked paths whose worktree or index differs from HEAD (edits, deletions)."""
    return run_git_paths(["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"], repo)


@dataclass(frozen=True)
class WorktreeListing:
    """What git lists of a worktree at one moment: its untracked paths, the untracked paths
    it ignores (an ignored folder as one `folder/` entry) and the tracked paths whose
    worktree or index differs from HEAD. Good only while nothing changes which paths
    these are: take a new one after an agent ran, a commit or a checkout."""

    untracked: tuple[str, ...]
    ignored: tuple[str, ...]
    differing: tuple[str, ...]

    @classmethod
    def take(cls, repo: Repo) -> WorktreeListing:
        return cls(
            untracked=tuple(_untracked(repo)),
            ignored=tuple(_ignored(repo)),
            differing=tuple(_differing(repo)),
        )


def secret_files(repo: Repo, *, listing: WorktreeListing | None = None) -> list[str]:
    """Untracked files (ignored or not) whose names mark them as credentials; files inside
    an ignored folder (a virtual environment's certificates …) are not listed. `listing`:
    the worktree as just listed (None: listed here)."""
    if listing is None:
        found = dict.fromkeys((*_untracked(repo), *_ignored(repo)))
    else:
        found = dict.fromkeys((*listing.untracked, *listing.ignored))
    return [path for path in found if not path.endswith("/") and is_secret_file(path)]


@dataclass(frozen=True)
class AgentChanges:
    """Paths the agents created, changed or deleted, and those withheld as credentials."""

    paths: tuple[str, ...]
    withheld: tuple[str, ...]


@dataclass(frozen=True)
class WorktreeBaseline:
    """The worktree's own state before the agents ran: every path then untracked, ignored
    or different from HEAD, with its content (see `_digest`)."""

    repo: Git
    files: dict[str, str | None]
    ignored_folders: tuple[str, ...]

    @classmethod
    def capture(cls, repo: Repo, *, listing: WorktreeListing | None = None) -> WorktreeBaseline:
        """The worktree now: the paths of `listing` (None: listed here; one taken before
        files were only rewritten in place, such as emptied credential files, names the
        same paths) with their content as it is now."""
        git = Git.of(repo)
        listed = listing if listing is not None else WorktreeListing.take(git)
        files: dict[str, str | None] = {}
        folders = []
        for path in listed.ignored:
            if path.endswith("/"):
                folders.append(path)
            else:
                files[path] = _digest(git.path / path)
        for path in (*listed.untracked, *listed.differing):
            files[path] = _digest(git.path / path)
        return cls(repo=git, files=files, ignored_folders=tuple(folders))

    def _was_there(self, path: str) -> bool:
        """True when `path` is as it was before the agents ran (or inside a folder that was
        ignored then, whose files were not recorded one by one)."""
        if any(path.startswith(folder) for folder in self.ignored_folders):
            return True
        return path in self.files and self.files[path] == _digest(self.repo.path / path)

    def unchanged(self) -> frozenset[str]:
        """The recorded paths that are still as they were: earlier steps' files."""
        return frozenset(path for path in self.files if self._was_there(path))

    def changes(self) -> AgentChanges:
        """What the agents did since `capture()`: their paths, and the withheld ones."""
        candidates = dict.fromkeys((*_untracked(self.repo), *_differing(self.repo)))
        paths: list[str] = []
        withheld: list[str] = []
        for path in candidates:
            if path.endswith("/") or self._was_there(path):
                continue  # a nested repository, or not the agents' work
            (withheld if is_secret_file(path) else paths).append(path)
        return AgentChanges(paths=tuple(paths), withheld=tuple(withheld))


def commit_changes(
    repo: Repo, paths: Sequence[str], message: str, *, co_author: str | None = None
) -> str | None:
    """Commit exactly `paths` as they are in the worktree (new, changed or deleted), and
    nothing else the index may hold; the new commit id, or None when none changed."""
    if not paths:
        return None
    run_git([*_LITERAL, "add", "--all", "--", *paths], repo)
    listing = [*_LITERAL, "diff", "--cached", "--name-only", "-z", "--no-renames", "--"]
    staged = run_git_paths([*listing, *paths], repo)
    if not staged:
        return None
    message = commit_message(message, co_author=co_author)
    args = [*_LITERAL, *identity_args(repo), "commit", "--quiet", "--no-verify", "-m", message]
    # Only the staged paths: one the index never held is no path `git commit` may name.
    run_git([*args, "--", *staged], repo)
    return head_sha(repo)
