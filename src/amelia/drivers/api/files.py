"""Confined file access for agent tools: reads and writes stay inside allowed directories.

Paths are resolved (following every symlink) before the check, so `..`, absolute paths
and symlinks that lead outside are all refused the same way. Nothing under `.git/` is
read or written: it holds hooks that git would run and, in CI, often a token.

The tools run in amelia's own process, while the agent's shell may change the worktree at
the same moment: a directory that becomes a symlink between the check and the open would
lead the open anywhere amelia's user can reach (`/proc/self/…`, the runner's file
commands, files of another user). So the checked path is then opened from its allowed
directory one component at a time (`openat` with `O_NOFOLLOW`): a component that is a
symlink by then is refused, never followed. Only regular files are read or written (a
FIFO would hang the read, a device is no source file), and a write to a file with other
hard links replaces it with a new file instead of changing the file the links share.
With an `owner` (the agent user, `amelia.isolation.agent_user`), the directories and files
the tools create are that user's, so the agent's shell can change them.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import BinaryIO

from amelia.errors import PathRefused
from amelia.isolation.agent_user import AgentUser

__all__ = [
    "MAX_READ_CHARS",
    "MAX_WRITE_BYTES",
    "ConfinedFiles",
    "resolve_confined",
    "universal_newlines",
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


def universal_newlines(text: str) -> str:
    """`text` with `\r\n` and `\r` line ends read as `\n`, as a file opened as text is."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


_DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _refused_open(file_path: str, error: OSError) -> PathRefused:
    return PathRefused(f"'{file_path}' changed while it was being opened ({error.strerror})")


@contextlib.contextmanager
def _parent_of(
    target: Path,
    roots: Sequence[Path],
    file_path: str,
    *,
    create: bool,
    owner: AgentUser | None = None,
) -> Iterator[tuple[int, str]]:
    """A descriptor of `target`'s directory, reached from the allowed directory holding
    it without following any symlink (created on the way when `create`, given to
    `owner`), and the name of `target` in it."""
    root = next(r for r in roots if target == r or target.is_relative_to(r))
    parts = target.relative_to(root).parts
    if not parts:
        raise IsADirectoryError(f"'{file_path}' is a directory")
    descriptor = os.open(root, _DIRECTORY_FLAGS)
    try:
        for part in parts[:-1]:
            made = False
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=descriptor)
                    made = True
            try:
                child = os.open(part, _DIRECTORY_FLAGS, dir_fd=descriptor)
            except OSError as error:
                if error.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refused_open(file_path, error) from error
                raise
            if made and owner is not None:
                os.fchown(child, owner.uid, owner.gid)
            os.close(descriptor)
            descriptor = child
        yield descriptor, parts[-1]
    finally:
        os.close(descriptor)


def _open_leaf(name: str, flags: int, directory: int, file_path: str) -> int:
    """Open `name` in `directory`, never through a symlink; refuse anything but a regular
    file."""
    # O_NONBLOCK: opening a FIFO returns (or fails) at once instead of waiting for a peer.
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        descriptor = os.open(name, flags, 0o644, dir_fd=directory)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _refused_open(file_path, error) from error
        if error.errno == errno.ENXIO:
            raise PathRefused(f"'{file_path}' is not a regular file") from error
        raise
    mode = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(mode):
        os.close(descriptor)
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"'{file_path}' is a directory")
        raise PathRefused(f"'{file_path}' is not a regular file")
    return descriptor


class ConfinedFiles:
    """Reads and writes files inside the allowed directories, and nowhere else."""

    def __init__(
        self,
        allowed_dirs: Sequence[str | os.PathLike[str]],
        *,
        base: str | os.PathLike[str] | None = None,
        max_read_chars: int = MAX_READ_CHARS,
        max_write_bytes: int = MAX_WRITE_BYTES,
        owner: AgentUser | None = None,
    ) -> None:
        """`owner`: the user what the tools create belongs to (None: amelia's)."""
        self.owner = owner
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
        with self.open_bytes(file_path, target=target) as handle:
            size = os.fstat(handle.fileno()).st_size
            # Four bytes at most per character: enough bytes for one character too many.
            data = handle.read(4 * (self.max_read_chars + 1))
        text = universal_newlines(data.decode("utf-8", errors="replace"))
        if len(text) > self.max_read_chars:
            return (
                text[: self.max_read_chars]
                + f"\n… [file truncated: showing {self.max_read_chars} of about {size} characters]"
            )
        return text

    @contextlib.contextmanager
    def open_bytes(self, file_path: str, *, target: Path | None = None) -> Iterator[BinaryIO]:
        """The regular file `file_path` (or its already checked real path `target`), open
        for reading, reached without following any symlink."""
        target = self.resolve(file_path) if target is None else target
        flags = os.O_RDONLY
        with _parent_of(target, _roots(self.allowed_dirs), file_path, create=False) as (
            directory,
            name,
        ):
            descriptor = _open_leaf(name, flags, directory, file_path)
        with os.fdopen(descriptor, "rb") as handle:
            yield handle

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
        roots = _roots(self.allowed_dirs)
        owner = self.owner
        with _parent_of(target, roots, file_path, create=True, owner=owner) as (directory, name):
            flags = os.O_WRONLY | os.O_CREAT
            try:
                descriptor = _open_leaf(name, flags | os.O_EXCL, directory, file_path)
                created = True
            except FileExistsError:
                descriptor = _open_leaf(name, flags, directory, file_path)
                created = False
            if os.fstat(descriptor).st_nlink > 1:
                # Another name shares this file: write a new file, leave theirs alone.
                os.close(descriptor)
                os.unlink(name, dir_fd=directory)
                descriptor = _open_leaf(name, flags | os.O_EXCL, directory, file_path)
                created = True
            if created and owner is not None:
                os.fchown(descriptor, owner.uid, owner.gid)
        with os.fdopen(descriptor, "wb") as handle:
            handle.truncate(0)
            handle.write(data)
        return target
