"""A stage's root filesystem as overlayfs layers, the way Docker's overlay2 driver keeps one.

The debootstrapped base and every cached layer are read-only lower directories; the steps
of a stage write into a fresh upper directory. Committing a step moves that upper directory
into the layer cache and stacks it as the newest lower, so nothing is ever copied. A
finished stage is remounted read-only, ready to be a lower of the next stage, the source of
`COPY --from`, or the image a container starts from.
"""

from __future__ import annotations

from pathlib import Path

from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.mounts import MountStack


class LayeredRoot:
    def __init__(self, directory: Path, lowers: list[Path]) -> None:
        """`lowers` newest first; `directory` holds the mount point and upper directories."""
        if not lowers:
            raise RehearsalError("a layered root needs at least one lower layer")
        self.directory = directory
        self.lowers = list(lowers)
        self.mountpoint = directory / "rootfs"
        self._generation = 0
        self._mounts = MountStack()
        self._upper: Path | None = None

    def mount_writable(self) -> Path:
        self._generation += 1
        upper = self.directory / f"upper-{self._generation}"
        work = self.directory / f"work-{self._generation}"
        for path in (upper, work, self.mountpoint):
            path.mkdir(parents=True, exist_ok=True)
        self._mounts.mount(
            self.mountpoint,
            "-t",
            "overlay",
            "-o",
            f"lowerdir={':'.join(map(str, self.lowers))},upperdir={upper},workdir={work}",
            "overlay",
        )
        self._upper = upper
        return self.mountpoint

    def detach_upper(self) -> Path:
        """Unmount and hand over the changes made since the last mount (for the cache)."""
        upper = self._require_upper()
        self._mounts.release()
        self._upper = None
        return upper

    def stack(self, layer: Path) -> None:
        """Make `layer` (a detached upper, maybe moved elsewhere) the newest lower."""
        self.lowers.insert(0, layer)

    def freeze(self) -> Path:
        """Remount read-only with the pending changes as the newest layer."""
        if self._upper is not None:
            self.stack(self.detach_upper())
        lowers = self.lowers
        if len(lowers) == 1:
            # overlayfs needs two lower directories when there is no upper one.
            empty = self.directory / "empty"
            empty.mkdir(parents=True, exist_ok=True)
            lowers = [empty, *lowers]
        self.mountpoint.mkdir(parents=True, exist_ok=True)
        self._mounts.mount(
            self.mountpoint,
            "-t",
            "overlay",
            "-o",
            f"ro,lowerdir={':'.join(map(str, lowers))}",
            "overlay",
        )
        return self.mountpoint

    def release(self) -> None:
        self._mounts.release()
        self._upper = None

    def _require_upper(self) -> Path:
        if self._upper is None:
            raise RehearsalError("the stage root is not mounted writable")
        return self._upper
