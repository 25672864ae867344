"""Git for the bot: branch, commit as `amelia[bot]`, push with retries, diff.

Every command is an argument list run without a shell, and every name that reaches git
(branches, paths) is validated first, because issue text chooses some of them. The
functions block; async callers run them with `asyncio.to_thread`.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath

from loguru import logger

from amelia.errors import BranchNameError, GitError, PlanPathError
from amelia.redaction import Redactor

BOT_NAME = "amelia[bot]"
BOT_EMAIL = "amelia[bot]@users.noreply.github.com"
_BRANCH_CHARS = re.compile(r"[A-Za-z0-9._/-]+")
_REJECTED = ("non-fast-forward", "fetch first", "[rejected]", "failed to push some refs")
_URL_REDACTOR = Redactor()


def _git_env() -> dict[str, str]:
    # Never wait for a password prompt in CI; parse git's messages in one language.
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "GIT_ASKPASS": "true"}


def run_git(args: Sequence[str], cwd: Path | None = None, timeout: float = 120.0) -> str:
    """Run `git *args` and return stdout; `GitError` carries git's own complaint."""
    command = ["git", *args]
    try:
        done = subprocess.run(
            command,
            cwd=cwd,
            capture_output=True,
            text=True,
            env=_git_env(),
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} timed out after {timeout:.0f}s") from None
    if done.returncode != 0:
        stderr = _URL_REDACTOR.redact(done.stderr)
        lines = [
            line.strip()
            for line in stderr.splitlines()
            if line.strip() and not line.startswith("hint:")
        ]
        complaint = " / ".join(lines[:3]) or f"exit status {done.returncode}"
        raise GitError(f"git {args[0]} failed: {complaint}", stderr)
    return done.stdout


def validate_branch_name(name: str, prefix: str | None = None) -> str:
    """`name` if git accepts it as a branch and it is inert in any shell; else BranchNameError.

    Follows `git check-ref-format` and, stricter, allows only letters, digits, `.`, `_`,
    `-` and `/`. With `prefix` (e.g. "amelia/"), the name must start with it.
    """
    problems = []
    if not name or len(name) > 200:
        problems.append("must be 1 to 200 characters")
    elif not _BRANCH_CHARS.fullmatch(name):
        problems.append("may only contain letters, digits, '.', '_', '-' and '/'")
    else:
        parts = name.split("/")
        if name.startswith("-"):
            problems.append("must not start with '-'")
        if ".." in name or "//" in name or name.endswith(("/", ".")) or name.startswith("/"):
            problems.append("must not contain '..' or '//' nor start or end with '/' or '.'")
        if any(p.startswith(".") or p.endswith(".lock") for p in parts):
            problems.append("no part may start with '.' or end with '.lock'")
        if name in ("HEAD", "@"):
            problems.append("is reserved")
    if prefix and not name.startswith(prefix):
        problems.append(f"must start with '{prefix}'")
    if problems:
        raise BranchNameError(f"invalid branch name {name[:80]!r}: {'; '.join(problems)}")
    return name


def validate_plan_path(repo: Path, path: str) -> Path:
    """The absolute location of repository-relative `path`, refusing escapes and `.git/`."""
    pure = PurePosixPath(path)
    if not path or "\x00" in path or "\\" in path:
        raise PlanPathError(f"invalid plan path {path[:80]!r}")
    if pure.is_absolute():
        raise PlanPathError(f"plan path {path!r} must be relative to the repository")
    if ".." in pure.parts:
        raise PlanPathError(f"plan path {path!r} must not contain '..'")
    if any(part.lower() == ".git" for part in pure.parts):
        raise PlanPathError(f"plan path {path!r} must not point into .git")
    root = repo.resolve()
    target = (root / pure).resolve()
    # A symlinked directory inside the checkout could still point outside it.
    if not target.is_relative_to(root) or target == root:
        raise PlanPathError(f"plan path {path!r} leaves the repository")
    return target


def mark_safe_directory(path: Path) -> None:
    """Trust `path` for git although another uid owns it (idempotent, global config)."""
    value = str(path.resolve())
    try:
        present = run_git(["config", "--global", "--get-all", "safe.directory"]).splitlines()
    except GitError:
        present = []  # no such key yet: git exits 1
    if value not in present:
        run_git(["config", "--global", "--add", "safe.directory", value])


def configure_identity(repo: Path, name: str = BOT_NAME, email: str = BOT_EMAIL) -> None:
    """Make the bot the author and committer of commits made in `repo`."""
    run_git(["config", "user.name", name], cwd=repo)
    run_git(["config", "user.email", email], cwd=repo)


def current_sha(repo: Path, ref: str = "HEAD") -> str:
    return run_git(["rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=repo).strip()


def remote_default_branch(repo: Path, remote: str = "origin") -> str:
    """The branch the remote's HEAD points at, asked of the remote itself."""
    out = run_git(["ls-remote", "--symref", remote, "HEAD"], cwd=repo)
    for line in out.splitlines():
        if line.startswith("ref: refs/heads/"):
            return line.split()[1].removeprefix("refs/heads/")
    raise GitError(f"could not tell the default branch of {remote}")


def remote_branch_exists(repo: Path, branch: str, remote: str = "origin") -> bool:
    validate_branch_name(branch)
    out = run_git(["ls-remote", "--heads", remote, f"refs/heads/{branch}"], cwd=repo)
    return bool(out.strip())


def _local_branch_exists(repo: Path, branch: str) -> bool:
    try:
        run_git(["rev-parse", "--verify", "--quiet", f"refs/heads/{branch}"], cwd=repo)
    except GitError:
        return False
    return True


def switch_to_branch(
    repo: Path, branch: str, base: str | None = None, remote: str = "origin"
) -> None:
    """Check out `branch`: the local one (rebased onto the remote's if both exist, so
    unpushed commits survive), else the remote's tip, else a new one from `base`
    (default: the remote's default branch)."""
    validate_branch_name(branch)
    on_remote = remote_branch_exists(repo, branch, remote)
    if _local_branch_exists(repo, branch):
        run_git(["checkout", "--quiet", branch, "--"], cwd=repo)
        if on_remote:
            _rebase_onto_remote(repo, branch, remote)
        return
    if on_remote:
        start = _fetch_branch(repo, branch, remote)
    else:
        start = _fetch_branch(
            repo, validate_branch_name(base or remote_default_branch(repo, remote)), remote
        )
    run_git(["checkout", "--quiet", "-b", branch, start, "--"], cwd=repo)


def _fetch_branch(repo: Path, branch: str, remote: str) -> str:
    """Fetch one branch into its remote-tracking ref and return that ref's name."""
    tracking = f"refs/remotes/{remote}/{branch}"
    run_git(["fetch", "--quiet", remote, f"+refs/heads/{branch}:{tracking}"], cwd=repo)
    return tracking


def _commit_message(message: str, co_author: str | None) -> str:
    if co_author:
        return f"{message.rstrip()}\n\nCo-authored-by: {co_author}"
    return message


def commit_all(repo: Path, message: str, co_author: str | None = None) -> str | None:
    """Commit every change in the worktree; the new sha, or None when nothing changed."""
    run_git(["add", "--all", "--", "."], cwd=repo)
    if not run_git(["diff", "--cached", "--name-only"], cwd=repo).strip():
        return None
    run_git(
        ["commit", "--quiet", "--no-verify", "-m", _commit_message(message, co_author)], cwd=repo
    )
    return current_sha(repo)


def commit_file(
    repo: Path,
    branch: str,
    path: str,
    content: str,
    message: str,
    co_author: str | None = None,
    base: str | None = None,
) -> str:
    """Write `content` to `path` on `branch` (made from `base` if new) and commit it.

    Returns the branch's head sha; no commit is made when the file already has `content`.
    `co_author` is "Name <email>" and becomes a `Co-authored-by` trailer.
    """
    switch_to_branch(repo, branch, base)
    target = validate_plan_path(repo, path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    relative = str(target.relative_to(repo.resolve()))
    run_git(["add", "--", relative], cwd=repo)
    if run_git(["diff", "--cached", "--name-only"], cwd=repo).strip():
        run_git(
            [
                "commit",
                "--quiet",
                "--no-verify",
                "-m",
                _commit_message(message, co_author),
                "--",
                relative,
            ],
            cwd=repo,
        )
    return current_sha(repo)


def push(
    repo: Path,
    branch: str,
    remote: str = "origin",
    attempts: int = 3,
    backoff: float = 2.0,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Push `branch`; when the remote moved on, fetch, rebase onto it and push again.

    Other failures (network, auth) are retried too, `attempts` times in all, then
    raise `GitError` with git's message.
    """
    validate_branch_name(branch)
    refspec = f"refs/heads/{branch}:refs/heads/{branch}"
    for attempt in range(1, attempts + 1):
        try:
            run_git(["push", "--quiet", remote, refspec], cwd=repo)
            return
        except GitError as error:
            if attempt == attempts:
                message = f"push of {branch} failed after {attempts} attempt(s): {error}"
                raise GitError(message) from None
            if any(marker in error.stderr for marker in _REJECTED):
                logger.info("push of {} rejected; rebasing onto {}/{}", branch, remote, branch)
                _rebase_onto_remote(repo, branch, remote)
            else:
                logger.warning("push of {} failed ({}); retrying", branch, error)
                sleep(backoff * attempt)


def _rebase_onto_remote(repo: Path, branch: str, remote: str) -> None:
    _fetch_branch(repo, branch, remote)
    try:
        run_git(["rebase", "--quiet", f"refs/remotes/{remote}/{branch}"], cwd=repo)
    except GitError as error:
        run_git(["rebase", "--abort"], cwd=repo)
        raise GitError(f"cannot rebase {branch} onto {remote}/{branch}: {error}") from None


def diff(repo: Path, base: str, head: str = "HEAD", merge_base: bool = True) -> str:
    """Unified diff from `base` to `head` (from their merge base when `merge_base`)."""
    for ref in (base, head):
        if ref.startswith("-"):
            raise GitError(f"invalid revision {ref!r}")
    spec = f"{base}...{head}" if merge_base else f"{base}..{head}"
    return run_git(["diff", "--no-color", "--no-ext-diff", spec, "--"], cwd=repo)
