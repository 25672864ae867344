"""What changed in a worktree since a base ref, as the reviewer sees it.

The review covers the commits since the merge base (`git diff <base>...HEAD`) plus work the
developer left uncommitted (tracked edits and new untracked files), because the pipeline
does not require the developer to commit and the caller may commit only after the review.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from amelia.errors import GitError

DEFAULT_MAX_DIFF_CHARS = 200_000


async def git(repo_dir: Path, *args: str, allowed_codes: tuple[int, ...] = (0,)) -> str:
    """Run git in `repo_dir` and return stdout; raise `GitError` on an unexpected exit code."""
    process = await asyncio.create_subprocess_exec(
        "git",
        *args,
        cwd=str(repo_dir),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    stdout, stderr = await process.communicate()
    if process.returncode not in allowed_codes:
        message = stderr.decode("utf-8", "replace").strip() or f"exit {process.returncode}"
        raise GitError(f"git {' '.join(args)}: {message}")
    return stdout.decode("utf-8", "replace")


async def is_git_repository(path: Path) -> bool:
    try:
        inside = await git(path, "rev-parse", "--is-inside-work-tree")
    except (GitError, OSError):
        return False
    return inside.strip() == "true"


async def verify_ref(repo_dir: Path, ref: str) -> str:
    """The commit id `ref` names; `GitError` when it names none."""
    return (await git(repo_dir, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")).strip()


class Changes(BaseModel):
    """The diff under review, split by where it lives."""

    model_config = ConfigDict(frozen=True)

    base_ref: str
    committed: str
    uncommitted: str
    untracked: str
    truncated: bool = False

    @property
    def is_empty(self) -> bool:
        return not (self.committed.strip() or self.uncommitted.strip() or self.untracked.strip())

    def as_text(self) -> str:
        sections = [
            (f"Committed changes (git diff {self.base_ref}...HEAD)", self.committed),
            ("Uncommitted changes to tracked files (git diff HEAD)", self.uncommitted),
            ("New untracked files", self.untracked),
        ]
        text = "\n\n".join(f"### {title}\n{body}" for title, body in sections if body.strip())
        if self.truncated:
            text += "\n\n[diff truncated: run `git diff` yourself for the rest]"
        return text


async def collect_changes(
    repo_dir: Path, base_ref: str, max_chars: int = DEFAULT_MAX_DIFF_CHARS
) -> Changes:
    """Committed, uncommitted and untracked changes since `base_ref`, cut to `max_chars`."""
    committed = await git(repo_dir, "diff", "--no-color", f"{base_ref}...HEAD")
    uncommitted = await git(repo_dir, "diff", "--no-color", "HEAD")
    listing = await git(repo_dir, "ls-files", "--others", "--exclude-standard", "-z")
    untracked_parts: list[str] = []
    room = max_chars - len(committed) - len(uncommitted)
    for name in filter(None, listing.split("\0")):
        if room <= 0:
            # Enough to fill the budget: skip diffing the rest (e.g. an unignored build folder).
            untracked_parts.append(f"[more untracked files, starting with {name}]\n")
            break
        # `--no-index` exits 1 when the files differ, which is always the case here.
        part = await git(
            repo_dir,
            "diff",
            "--no-color",
            "--no-index",
            "--",
            "/dev/null",
            name,
            allowed_codes=(0, 1),
        )
        untracked_parts.append(part)
        room -= len(part)
    untracked = "".join(untracked_parts)
    budget = max_chars
    truncated = False
    parts: list[str] = []
    for part in (committed, uncommitted, untracked):
        if len(part) > budget:
            part, truncated = part[:budget], True
        budget -= len(part)
        parts.append(part)
    return Changes(
        base_ref=base_ref,
        committed=parts[0],
        uncommitted=parts[1],
        untracked=parts[2],
        truncated=truncated,
    )
