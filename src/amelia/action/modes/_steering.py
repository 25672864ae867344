"""Keep a pull request's head from steering the agents that review it.

Claude Code reads CLAUDE.md (and CLAUDE.local.md) from its working directory, settings,
hooks and commands from `.claude/`, and MCP servers from `.mcp.json`; other agents read
AGENTS.md; amelia itself is configured by `.github/amelia.yml`. A pull request can change
any of them, so before an agent runs on a head we do
not trust, these paths are put back as the trusted base has them (or removed when the base
has none) and the result is committed locally, so the reviewed diff no longer carries the
head's version either. The commit is never pushed.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from amelia.git import Repo, changed_paths, commit_paths, path_exists_at, run_git

__all__ = [
    "STEERING_DIR_NAMES",
    "STEERING_FILE_NAMES",
    "STEERING_PATHS",
    "is_steering_path",
    "reset_steering_files",
    "restore_steering_files",
]


STEERING_FILE_NAMES = frozenset({"CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".mcp.json"})
STEERING_DIR_NAMES = frozenset({".claude"})
STEERING_PATHS = frozenset({".github/amelia.yml", ".github/amelia.yaml"})
"""Steering files at one place only (from the top of the repository)."""


def is_steering_path(path: str) -> bool:
    """True for files agents read as instructions or configuration, at any depth."""
    parts = PurePosixPath(path).parts
    if not parts:
        return False
    if "/".join(parts) in STEERING_PATHS:
        return True
    return parts[-1] in STEERING_FILE_NAMES or any(p in STEERING_DIR_NAMES for p in parts[:-1])


def reset_steering_files(repo: Repo, base: str) -> list[str]:
    """Reset every steering path the head changed since `base` to `base`'s version (or
    remove it when `base` has none) in the worktree and the index, without committing; the
    paths reset (empty: the head changed none). For a head amelia pushes to: its commits
    name their paths, so the reset never becomes part of one."""
    changed = sorted(p for p in changed_paths(repo, base) if is_steering_path(p))
    for path in changed:
        if path_exists_at(repo, base, path):
            run_git(["checkout", "--quiet", base, "--", path], repo)
        else:
            run_git(["rm", "--quiet", "--force", "--", path], repo)
    return changed


def restore_steering_files(repo: Repo, base: str) -> list[str]:
    """Reset every steering path the head changed since `base` to `base`'s version, commit
    that locally, and return the paths reset (empty: the head changed none)."""
    changed = reset_steering_files(repo, base)
    if changed:
        commit_paths(repo, changed, "Keep the base branch's agent instructions and settings")
    return changed
