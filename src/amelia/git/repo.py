"""A local repository: where it is, what HEAD is, what changed, and its configuration."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from urllib.parse import urlsplit

from amelia.errors import GitError
from amelia.git.runner import run_git, run_git_bytes, run_git_paths, split_paths

__all__ = [
    "BOT_EMAIL",
    "BOT_NAME",
    "bot_identity_for",
    "changed_paths",
    "check_out_detached",
    "configure_identity",
    "diff",
    "diff_stat",
    "head_sha",
    "identity_args",
    "is_bare_repository",
    "is_shallow",
    "mark_safe_directory",
    "merge_base",
    "noreply_address",
    "path_exists_at",
    "status_short",
    "worktree_root",
]

BOT_NAME = "amelia[bot]"
BOT_EMAIL = "amelia[bot]@users.noreply.github.com"
"""The bot's address on github.com; `bot_identity_for` names it on another GitHub."""

_bot_email: ContextVar[str] = ContextVar("amelia_bot_email", default=BOT_EMAIL)


def noreply_address(login: str, *, server_url: str = "https://github.com") -> str:
    """The address GitHub at `server_url` gives `login`'s commits: `<login>@users.noreply.
    <host>` (github.com, or a GitHub Enterprise Server's own host)."""
    host = urlsplit(server_url).hostname or "github.com"
    return f"{login}@users.noreply.{host}"


@contextmanager
def bot_identity_for(server_url: str) -> Iterator[None]:
    """The bot's commits in this block (and in threads started from it) carry the noreply
    address of the GitHub at `server_url`, so nothing names github.com on an Enterprise
    Server."""
    token = _bot_email.set(noreply_address(BOT_NAME, server_url=server_url))
    try:
        yield
    finally:
        _bot_email.reset(token)


def identity_args(*, name: str = BOT_NAME, email: str | None = None) -> list[str]:
    """Options that make the one git command they precede commit as `name <email>`, whatever
    the repository's or the user's configuration says, and without changing it. `email`
    defaults to the bot's address (see `bot_identity_for`)."""
    return ["-c", f"user.name={name}", "-c", f"user.email={email or _bot_email.get()}"]


def _revision(ref: str) -> str:
    # A revision that starts with '-' would be read as an option.
    if not ref or ref.startswith("-"):
        raise GitError(f"invalid revision {ref!r}")
    return ref


def worktree_root(path: Path) -> Path:
    """The top folder of the work tree `path` is in; `GitError` outside one (or in a bare
    repository, which has no work tree)."""
    return Path(run_git(["rev-parse", "--show-toplevel"], path).strip())


def is_bare_repository(path: Path) -> bool:
    """True when `path` is (inside) a bare repository: history without a work tree."""
    try:
        return run_git(["rev-parse", "--is-bare-repository"], path).strip() == "true"
    except GitError:
        return False


def head_sha(repo: Path, *, ref: str = "HEAD") -> str:
    """The commit id `ref` names (HEAD by default); `GitError` when it names no commit."""
    return run_git(["rev-parse", "--verify", f"{_revision(ref)}^{{commit}}"], repo).strip()


def merge_base(repo: Path, first: str, second: str) -> str:
    """The best common ancestor of two commits."""
    return run_git(["merge-base", _revision(first), _revision(second)], repo).strip()


def is_shallow(repo: Path) -> bool:
    """True for a clone with cut history (actions/checkout fetches one commit by default)."""
    return run_git(["rev-parse", "--is-shallow-repository"], repo).strip() == "true"


def check_out_detached(repo: Path, commit: str) -> None:
    """Check out `commit` without a branch."""
    run_git(["checkout", "--quiet", "--detach", _revision(commit), "--"], repo)


def status_short(repo: Path) -> str:
    """`git status --short`: one line per changed or untracked file."""
    return run_git(["status", "--short"], repo)


def diff(repo: Path, base: str, *, head: str = "HEAD", merge_base: bool = True) -> str:
    """Unified diff from `base` to `head` (from their merge base when `merge_base`)."""
    spec = f"{_revision(base)}...{_revision(head)}" if merge_base else f"{base}..{head}"
    return run_git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", spec, "--"], repo)


def changed_paths(repo: Path, base: str, *, head: str = "HEAD") -> list[str]:
    """The paths that differ between two commits (renames as a deletion and an addition)."""
    args = ["diff", "--no-renames", "--name-only", "-z", _revision(base), _revision(head), "--"]
    return run_git_paths(args, repo)


def diff_stat(
    repo: Path, base: str, *, head: str = "HEAD"
) -> list[tuple[str, int | None, int | None]]:
    """(path, lines added, lines removed) per file that differs between two commits, in
    git's order; a binary file's counts are None. Renames count as a deletion and an
    addition."""
    args = ["diff", "--no-renames", "--numstat", "-z", _revision(base), _revision(head), "--"]
    stats: list[tuple[str, int | None, int | None]] = []
    for entry in split_paths(run_git_bytes(args, repo)):
        added, removed, path = entry.split("\t", 2)
        stats.append(
            (
                path,
                int(added) if added.isdigit() else None,
                int(removed) if removed.isdigit() else None,
            )
        )
    return stats


def path_exists_at(repo: Path, commit: str, path: str) -> bool:
    """True when `path` (a file or a folder) exists in `commit`'s tree."""
    return bool(
        run_git_paths(["ls-tree", "--name-only", "-z", _revision(commit), "--", path], repo)
    )


def mark_safe_directory(path: Path) -> None:
    """Trust `path` for git although another uid owns it (idempotent, global config)."""
    value = str(path.resolve())
    # Exit 1: no such key yet.
    present = run_git(["config", "--global", "--get-all", "safe.directory"], None, ok_codes=(0, 1))
    if value not in present.splitlines():
        run_git(["config", "--global", "--add", "safe.directory", value], None)


def configure_identity(repo: Path, *, name: str = BOT_NAME, email: str | None = None) -> None:
    """Make the bot the author and committer of every commit made in `repo`, the agents'
    own included (the repository's config: only for a runner's throwaway checkout)."""
    run_git(["config", "user.name", name], repo)
    run_git(["config", "user.email", email or _bot_email.get()], repo)
