"""A local repository: where it is, what HEAD is, what changed, and its configuration."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from amelia.errors import GitError
from amelia.git.runner import run_git, run_git_bytes, run_git_paths, split_paths
from amelia.git.value import BOT_EMAIL, BOT_NAME, Git, Repo, noreply_address

__all__ = [
    "BOT_EMAIL",
    "BOT_NAME",
    "ChangedFile",
    "changed_paths",
    "check_out_detached",
    "configure_identity",
    "diff",
    "diff_files",
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


def identity_args(repo: Repo, *, name: str = BOT_NAME) -> list[str]:
    """Options that make the one git command they precede commit as `name` with the bot's
    address of `repo` (see `Git.email`), whatever the repository's or the user's
    configuration says, and without changing it."""
    return ["-c", f"user.name={name}", "-c", f"user.email={Git.of(repo).email}"]


def _revision(ref: str) -> str:
    # A revision that starts with '-' would be read as an option.
    if not ref or ref.startswith("-"):
        raise GitError(f"invalid revision {ref!r}")
    return ref


def worktree_root(path: Repo) -> Path:
    """The top folder of the work tree `path` is in; `GitError` outside one (or in a bare
    repository, which has no work tree)."""
    return Path(run_git(["rev-parse", "--show-toplevel"], path).strip())


def is_bare_repository(path: Repo) -> bool:
    """True when `path` is (inside) a bare repository: history without a work tree."""
    try:
        return run_git(["rev-parse", "--is-bare-repository"], path).strip() == "true"
    except GitError:
        return False


def head_sha(repo: Repo, *, ref: str = "HEAD") -> str:
    """The commit id `ref` names (HEAD by default); `GitError` when it names no commit."""
    return run_git(["rev-parse", "--verify", f"{_revision(ref)}^{{commit}}"], repo).strip()


def merge_base(repo: Repo, first: str, second: str) -> str:
    """The best common ancestor of two commits."""
    return run_git(["merge-base", _revision(first), _revision(second)], repo).strip()


def is_shallow(repo: Repo) -> bool:
    """True for a clone with cut history (actions/checkout fetches one commit by default)."""
    return run_git(["rev-parse", "--is-shallow-repository"], repo).strip() == "true"


def check_out_detached(repo: Repo, commit: str) -> None:
    """Check out `commit` without a branch."""
    run_git(["checkout", "--quiet", "--detach", _revision(commit), "--"], repo)


def status_short(repo: Repo) -> str:
    """`git status --short`: one line per changed or untracked file."""
    return run_git(["status", "--short"], repo)


def diff(repo: Repo, base: str, *, head: str = "HEAD", merge_base: bool = True) -> str:
    """Unified diff from `base` to `head` (from their merge base when `merge_base`)."""
    spec = f"{_revision(base)}...{_revision(head)}" if merge_base else f"{base}..{head}"
    return run_git(["diff", "--no-color", "--no-ext-diff", "--no-textconv", spec, "--"], repo)


def changed_paths(repo: Repo, base: str, *, head: str = "HEAD") -> list[str]:
    """The paths that differ between two commits (renames as a deletion and an addition)."""
    args = ["diff", "--no-renames", "--name-only", "-z", _revision(base), _revision(head), "--"]
    return run_git_paths(args, repo)


@dataclass(frozen=True)
class ChangedFile:
    """One file that differs between two commits: its path, the lines added and removed
    (None for a binary file) and git's status letter (`A`, `M`, `D`, `T`)."""

    path: str
    added: int | None
    removed: int | None
    status: str


def diff_files(repo: Repo, base: str, *, head: str = "HEAD") -> list[ChangedFile]:
    """Every file that differs between two commits, in git's order: its path (as
    `changed_paths` lists them), its lines added and removed and its status letter, from
    one command (`--raw` gives the status, `--numstat` the lines; renames count as a
    deletion and an addition)."""
    args = [
        "diff",
        "--no-ext-diff",
        "--no-textconv",
        "--no-renames",
        "--raw",
        "--numstat",
        "-z",
        _revision(base),
        _revision(head),
        "--",
    ]
    fields = split_paths(run_git_bytes(args, repo))
    statuses: dict[str, str] = {}
    files: list[ChangedFile] = []
    index = 0
    # First a raw entry per file (`:<modes> <ids> <status>`, then its path), then a numstat
    # entry per file (`<added>\t<removed>\t<path>`), in the same order.
    while index < len(fields) and fields[index].startswith(":"):
        statuses[fields[index + 1]] = fields[index].rsplit(" ", 1)[-1][:1]
        index += 2
    for entry in fields[index:]:
        added, removed, path = entry.split("\t", 2)
        files.append(
            ChangedFile(
                path=path,
                added=int(added) if added.isdigit() else None,
                removed=int(removed) if removed.isdigit() else None,
                status=statuses.get(path, ""),
            )
        )
    return files


def path_exists_at(repo: Repo, commit: str, path: str) -> bool:
    """True when `path` (a file or a folder) exists in `commit`'s tree."""
    return bool(
        run_git_paths(["ls-tree", "--name-only", "-z", _revision(commit), "--", path], repo)
    )


def mark_safe_directory(repo: Repo) -> None:
    """Trust `repo`'s folder for git although another uid owns it (idempotent, the global
    config `repo` reads: amelia's own when isolated)."""
    value = str(Git.of(repo).path.resolve())
    # Exit 1: no such key yet.
    listing = ["config", "--global", "--get-all", "safe.directory"]
    present = run_git(listing, repo, ok_codes=(0, 1), outside=True)
    if value not in present.splitlines():
        run_git(["config", "--global", "--add", "safe.directory", value], repo, outside=True)


def configure_identity(repo: Repo, *, name: str = BOT_NAME) -> None:
    """Make the bot (its address of `repo`) the author and committer of every commit made
    in `repo`, the agents' own included (the repository's config: only for a runner's
    throwaway checkout)."""
    run_git(["config", "user.name", name], repo)
    run_git(["config", "user.email", Git.of(repo).email], repo)
