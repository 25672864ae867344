"""Confined file access for agent tools: reads and writes stay inside allowed directories.

Paths are resolved (following every symlink) before the check, so `..`, absolute paths
and symlinks that lead outside are all refused the same way. Nothing under `.git/` is
read or written: it holds hooks that git would run and, in CI, often a token.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from amelia.errors import PathRefused

__all__ = [
    "MAX_READ_CHARS",
    "MAX_WRITE_BYTES",
    "ConfinedFiles",
    "resolve_confined",
]


MAX_WRITE_BYTES = 1_000_000
MAX_READ_CHARS = 200_000


def _roots(allowed_dirs: Sequence[str | os.PathLike[str]]) -> list[Path]:
    if not allowed_dirs:
        raise ValueError("at least one allowed directory is required")
    return [Path(d).resolve() for d in allowed_dirs]


def resolve_confined(
    file_path: str, base: str | os.PathLike[str], allowed_dirs: Sequence[str | os.PathLike[str]]
) -> Path:
    """The real path of `file_path` (relative to `base`), if it lies inside an allowed dir."""
    if not file_path or not file_path.strip():
        raise PathRefused("the file path is empty")
    if "\x00" in file_path:
        raise PathRefused("the file path contains a NUL byte")
    candidate = Path(file_path)
    if not candidate.is_absolute():
        candidate = Path(base) / candidate
    resolved = candidate.resolve()
    for root in _roots(allowed_dirs):
        if resolved == root or resolved.is_relative_to(root):
            relative = resolved.relative_to(root)
            if any(part.lower() == ".git" for part in relative.parts):
                raise PathRefused(f"'{file_path}' is inside .git/, which agents may not touch")
            return resolved
    raise PathRefused(
        f"'{file_path}' resolves to {resolved}, outside the allowed directories "
        f"({', '.join(str(r) for r in _roots(allowed_dirs))})"
    )


class ConfinedFiles:
    """Reads and writes files inside the allowed directories, and nowhere else."""

    def __init__(
        self,
        allowed_dirs: Sequence[str | os.PathLike[str]],
        *,
        base: str | os.PathLike[str] | None = None,
        max_read_chars: int = MAX_READ_CHARS,
        max_write_bytes: int = MAX_WRITE_BYTES,
    ) -> None:
        self.allowed_dirs = list(allowed_dirs)
        self.base = Path(base) if base is not None else Path(self.allowed_dirs[0])
        self.max_read_chars = max_read_chars
        self.max_write_bytes = max_write_bytes

    def resolve(self, file_path: str) -> Path:
        return resolve_confined(file_path, self.base, self.allowed_dirs)

    def read(self, file_path: str) -> str:
        """The file's text, truncated with a visible marker past `max_read_chars`."""
        target = self.resolve(file_path)
        if not target.exists():
            raise FileNotFoundError(f"'{file_path}' does not exist")
        if target.is_dir():
            raise IsADirectoryError(f"'{file_path}' is a directory")
        with target.open("r", encoding="utf-8", errors="replace") as handle:
            text = handle.read(self.max_read_chars + 1)
        if len(text) > self.max_read_chars:
            size = target.stat().st_size
            return (
                text[: self.max_read_chars]
                + f"\n… [file truncated: showing {self.max_read_chars} of about {size} characters]"
            )
        return text

    def write(self, file_path: str, content: str) -> Path:
        """Write `content`, creating parent directories; returns the real path written.

        Raises PathRefused or ValueError.
        """
        data = content.encode("utf-8")
        if len(data) > self.max_write_bytes:
            raise ValueError(
                f"content is {len(data)} bytes; the limit for one file is "
                f"{self.max_write_bytes} bytes"
            )
        target = self.resolve(file_path)
        if target.is_dir():
            raise ValueError(f"'{file_path}' is a directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        # Re-check after creating parents: a directory created meanwhile could be a symlink.
        if self.resolve(file_path) != target:
            raise PathRefused(f"'{file_path}' changed while it was being written")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        descriptor = os.open(target, flags, 0o644)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        return target
