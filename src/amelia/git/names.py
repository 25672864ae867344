"""Names that reach git: branch names and repository-relative paths, checked before use.

Issue text and configuration choose some of them, so they are refused unless git accepts
them and no shell could read them as options or code.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from amelia.errors import BranchNameError, PlanPathError

__all__ = ["unquote_path", "validate_branch_name", "validate_plan_path"]

_BRANCH_CHARS = re.compile(r"[A-Za-z0-9._/-]+")
_QUOTED_CHAR = re.compile(rb"\\(?:([0-7]{3})|(.))", re.DOTALL)
_C_ESCAPES = {b"a": 7, b"b": 8, b"t": 9, b"n": 10, b"v": 11, b"f": 12, b"r": 13}


def unquote_path(path: str) -> str:
    """A path as git names it in a diff, without git's C-style quoting.

    Git quotes a name holding a quote, a backslash, a control character or (unless
    `core.quotePath=false`) any byte above 0x7f: `é.txt` is written `"\\303\\251.txt"`
    in git's default output and in GitHub's diffs. Unquoted, the bytes are read as UTF-8
    (invalid bytes become U+FFFD, as in `amelia.git.display`); a path without quotes is
    returned as it is.
    """
    if len(path) < 2 or not (path.startswith('"') and path.endswith('"')):
        return path
    inner = path[1:-1].encode("utf-8", "surrogateescape")

    def byte(found: re.Match[bytes]) -> bytes:
        octal, char = found.group(1), found.group(2)
        if octal is not None:
            return bytes([int(octal, 8) & 0xFF])
        return bytes([_C_ESCAPES[char]]) if char in _C_ESCAPES else char

    return _QUOTED_CHAR.sub(byte, inner).decode("utf-8", "replace")


def validate_branch_name(name: str, *, prefix: str | None = None) -> str:
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
    """The absolute location of repository-relative `path`, refusing escapes and `.git/`
    (in any letter case: `.GIT` is `.git` on case-insensitive file systems)."""
    pure = PurePosixPath(path)
    if not path.strip() or "\x00" in path or "\\" in path:
        raise PlanPathError(f"invalid plan path {path[:80]!r}")
    if pure.is_absolute():
        raise PlanPathError(f"plan path {path!r} must be relative to the repository")
    if ".." in pure.parts:
        raise PlanPathError(
            f"plan path {path!r} must not contain '..', so that it never leaves the repository"
        )
    if any(part.lower() == ".git" for part in pure.parts):
        raise PlanPathError(f"plan path {path!r} must not point into .git")
    root = repo.resolve()
    target = (root / pure).resolve()
    # A symlinked directory inside the checkout could still point outside it.
    if not target.is_relative_to(root) or target == root:
        raise PlanPathError(f"plan path {path!r} leaves the repository")
    if any(part.lower() == ".git" for part in target.relative_to(root).parts):
        raise PlanPathError(f"plan path {path!r} must not point into .git")
    return target
