"""What changed in a worktree since a base ref, as the reviewer sees it.

The review covers the commits since the merge base (`git diff <base>...HEAD`) plus work the
developer left uncommitted (tracked edits and new untracked files), because the pipeline
does not require the developer to commit and the caller may commit only after the review.
"""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Sequence

from pydantic import BaseModel, ConfigDict

from amelia.git.runner import display_path, run_git, run_git_paths
from amelia.git.value import Repo

__all__ = ["DEFAULT_MAX_DIFF_CHARS", "Changes", "collect_changes", "pathspec"]

DEFAULT_MAX_DIFF_CHARS = 200_000
_DIFF = ("diff", "--no-color", "--no-ext-diff", "--no-textconv")
"""A diff as git stores the files: no external diff or text conversion program, which the
repository's config (and `.gitattributes`, which agents write) could name."""


class Changes(BaseModel):
    """The diff under review, split by where it lives."""

    model_config = ConfigDict(frozen=True)

    base_ref: str
    committed: str
    uncommitted: str
    untracked: str
    truncated: bool = False
    paths: tuple[str, ...] = ()
    """Every path the change touches (committed, uncommitted or new), as git names them."""

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


def pathspec(exclude: Sequence[str]) -> list[str]:
    """The pathspec of the whole tree but `exclude` (git's default matching: `*` matches
    `/` too, so `*.lock` leaves out lock files in every folder and `docs/**` all of docs)."""
    return ["--", ".", *(f":(exclude){pattern}" for pattern in exclude)]


def _collect(
    repo_dir: Repo,
    base_ref: str,
    max_chars: int,
    skip: Collection[str],
    exclude: Sequence[str],
) -> Changes:
    paths = pathspec(exclude)
    committed = run_git([*_DIFF, f"{base_ref}...HEAD", *paths], repo_dir)
    excluded = [f":(exclude,literal){path}" for path in sorted(skip)]
    uncommitted = run_git([*_DIFF, "HEAD", *paths, *excluded], repo_dir)
    untracked_names = [
        name
        for name in run_git_paths(
            ["ls-files", "--others", "--exclude-standard", "-z", *paths], repo_dir
        )
        if name not in skip
    ]
    changed = [
        *run_git_paths([*_DIFF, "--name-only", "-z", f"{base_ref}...HEAD", *paths], repo_dir),
        *run_git_paths([*_DIFF, "--name-only", "-z", "HEAD", *paths, *excluded], repo_dir),
        *untracked_names,
    ]
    untracked_parts: list[str] = []
    room = max_chars - len(committed) - len(uncommitted)
    for name in untracked_names:
        if room <= 0:
            # Enough to fill the budget: skip diffing the rest (e.g. an unignored build folder).
            untracked_parts.append(f"[more untracked files, starting with {display_path(name)}]\n")
            break
        # `--no-index` exits 1 when the files differ, which is always the case here.
        args = [*_DIFF, "--no-index", "--", "/dev/null", name]
        part = run_git(args, repo_dir, ok_codes=(0, 1))
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
        paths=tuple(dict.fromkeys(display_path(name) for name in changed)),
    )


async def collect_changes(
    repo_dir: Repo,
    base_ref: str,
    *,
    max_chars: int = DEFAULT_MAX_DIFF_CHARS,
    skip: Collection[str] = (),
    exclude: Sequence[str] = (),
) -> Changes:
    """Committed, uncommitted and untracked changes since `base_ref`, cut to `max_chars`;
    the uncommitted state of the paths in `skip` (files that were there before the agents
    ran, see `amelia.git.WorktreeBaseline`) is left out, and every path matching `exclude`
    (see `pathspec`)."""
    return await asyncio.to_thread(_collect, repo_dir, base_ref, max_chars, skip, exclude)
