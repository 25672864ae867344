"""Files amelia takes away for a while and gives back exactly: bytes, mode, owner, times.

A `SavedFile` is written back in place (the same inode, so its owner and any hard link
stay), never through a symlink, and recreated with its old mode and owner if someone
removed it meanwhile. Only this process's memory holds the saved bytes.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["SavedFile", "overwrite"]

_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC


def overwrite(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace the content of the file at `path` (not through a symlink) with `data`,
    keeping its inode, owner and mode; a missing file is created with `mode`."""
    descriptor = os.open(path, _WRITE_FLAGS, mode)
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)


@dataclass(frozen=True)
class SavedFile:
    """A regular file as it was: where, its bytes and its metadata."""

    path: Path
    data: bytes
    mode: int
    uid: int
    gid: int
    times_ns: tuple[int, int]

    @classmethod
    def read(cls, path: Path) -> SavedFile | None:
        """The file at `path` as it is now; None unless it is a regular file (a symlink is
        not followed)."""
        try:
            before = path.lstat()
            if not stat.S_ISREG(before.st_mode):
                return None
            descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            return None
        with os.fdopen(descriptor, "rb") as handle:
            data = handle.read()
        return cls(
            path=path,
            data=data,
            mode=stat.S_IMODE(before.st_mode),
            uid=before.st_uid,
            gid=before.st_gid,
            times_ns=(before.st_atime_ns, before.st_mtime_ns),
        )

    def is_current(self) -> bool:
        """True when the file holds exactly the saved bytes, mode and owner now."""
        current = SavedFile.read(self.path)
        return current is not None and (current.data, current.mode, current.uid, current.gid) == (
            self.data,
            self.mode,
            self.uid,
            self.gid,
        )

    def put_back(self) -> None:
        """Write the saved bytes back in place and restore mode, owner and times."""
        with contextlib.suppress(FileNotFoundError):
            current = self.path.lstat()
            if stat.S_ISDIR(current.st_mode):
                raise IsADirectoryError(f"{self.path} is a directory now")
            if not stat.S_ISREG(current.st_mode):
                self.path.unlink()  # a symlink or other file took its place: never follow it
        descriptor = os.open(self.path, _WRITE_FLAGS, self.mode)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(self.data)
            handle.flush()
            os.fchmod(descriptor, self.mode)
            with contextlib.suppress(PermissionError):
                os.fchown(descriptor, self.uid, self.gid)
            os.utime(descriptor, ns=self.times_ns)
