"""The kernel filesystems a container gets, mounted into a root for the length of one step.

Docker gives a RUN step /proc, a fresh /dev (a few device nodes, /dev/pts, /dev/shm) and a
read-only /sys, never the host's /dev itself. We do the same with a tmpfs /dev and bind-mounted
device files, and always unmount, newest first, even when the step fails.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from scripts.image_rehearsal.errors import RehearsalError

_DEVICE_FILES = ("null", "zero", "full", "random", "urandom", "tty")
_DEV_SYMLINKS = {
    "fd": "/proc/self/fd",
    "stdin": "/proc/self/fd/0",
    "stdout": "/proc/self/fd/1",
    "stderr": "/proc/self/fd/2",
    "ptmx": "pts/ptmx",
    "core": "/proc/kcore",
}


def mount_points_under(path: Path) -> list[Path]:
    """Mount points at or below `path`, read from the kernel's own table."""
    target = path.resolve()
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        # Field 5 is the mount point, with spaces and the like octal-escaped.
        mount_point = Path(line.split()[4].encode().decode("unicode_escape"))
        if mount_point == target or target in mount_point.parents:
            found.append(mount_point)
    return found


def unmount(mount_point: Path) -> None:
    result = subprocess.run(["umount", str(mount_point)], capture_output=True, text=True)
    if result.returncode != 0:
        # A process left behind by the step can keep the mount busy; detach it instead.
        subprocess.run(["umount", "--lazy", str(mount_point)], capture_output=True, check=False)


def unmount_all_under(path: Path) -> None:
    for mount_point in sorted(mount_points_under(path), key=lambda p: len(p.parts), reverse=True):
        unmount(mount_point)


class MountStack:
    """Mounts made in order and undone in reverse."""

    def __init__(self) -> None:
        self._mounted: list[Path] = []

    def mount(self, target: Path, *args: str) -> None:
        result = subprocess.run(["mount", *args, str(target)], capture_output=True, text=True)
        if result.returncode != 0:
            raise RehearsalError(
                f"cannot mount {target} ({' '.join(args)}): {result.stderr.strip()}"
            )
        self._mounted.append(target)

    def bind(self, source: Path, target: Path, *, read_only: bool = False) -> None:
        self.mount(target, "--bind", str(source))
        if read_only:
            self.mount(target, "-o", "remount,bind,ro")
            # The remount is the same mount point; record it once.
            self._mounted.pop()

    def release(self) -> None:
        while self._mounted:
            unmount(self._mounted.pop())


@contextmanager
def container_mounts(root: Path) -> Iterator[MountStack]:
    """/proc, /dev and /sys inside `root` as a container sees them, undone on exit."""
    stack = MountStack()
    try:
        for name in ("proc", "dev", "sys"):
            (root / name).mkdir(mode=0o755, exist_ok=True)
        stack.mount(root / "proc", "-t", "proc", "proc")
        stack.mount(root / "dev", "-t", "tmpfs", "-o", "mode=755,nosuid,size=65536k", "tmpfs")
        dev = root / "dev"
        for name in _DEVICE_FILES:
            (dev / name).touch()
            stack.bind(Path("/dev") / name, dev / name)
        (dev / "pts").mkdir()
        stack.mount(
            dev / "pts", "-t", "devpts", "-o", "newinstance,ptmxmode=0666,mode=620", "devpts"
        )
        (dev / "shm").mkdir(mode=0o1777)
        stack.mount(dev / "shm", "-t", "tmpfs", "-o", "nosuid,nodev,size=65536k", "shm")
        for name, target in _DEV_SYMLINKS.items():
            (dev / name).symlink_to(target)
        stack.mount(root / "sys", "-t", "sysfs", "-o", "ro,nosuid,nodev,noexec", "sysfs")
        yield stack
    finally:
        stack.release()


def remove_tree(path: Path) -> None:
    """Delete a rehearsal directory, refusing while anything is still mounted beneath it:
    a leftover bind mount would let the delete reach into the host."""
    if not path.exists() and not path.is_symlink():
        return
    unmount_all_under(path)
    remaining = mount_points_under(path)
    if remaining:
        raise RehearsalError(f"refusing to delete {path}: still mounted: {remaining}")
    with suppress(FileNotFoundError):
        subprocess.run(["rm", "-rf", "--one-file-system", str(path)], check=True)
