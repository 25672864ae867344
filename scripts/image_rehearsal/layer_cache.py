"""Root filesystems saved after chosen steps, keyed by the step's cache key.

A later rehearsal restores the newest saved step whose key still matches and applies only
what follows, so an unchanged dependency layer is not rebuilt when only sources changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from scripts.image_rehearsal.mounts import remove_tree
from scripts.image_rehearsal.rootfs import copy_tree

_COMPLETE = "complete"


class LayerCache:
    def __init__(self, directory: Path, *, keep: int = 12) -> None:
        self.directory = directory
        self.keep = keep
        self._used: set[str] = set()

    def lookup(self, key: str) -> Path | None:
        entry = self.directory / key
        if not (entry / _COMPLETE).is_file():
            return None
        # The marker's mtime records the last use, for pruning least recently used entries.
        os.utime(entry / _COMPLETE)
        self._used.add(key)
        return entry / "rootfs"

    def store(self, key: str, root: Path) -> Path:
        entry = self.directory / key
        staging = self.directory / f"{key}.partial"
        remove_tree(staging)
        remove_tree(entry)
        copy_tree(root, staging / "rootfs")
        (staging / _COMPLETE).write_text(key + "\n")
        staging.rename(entry)
        self._used.add(key)
        return entry / "rootfs"

    def prune(self) -> list[str]:
        """Drop the least recently used entries beyond `keep`, never one used by this run."""
        entries = []
        for entry in self.directory.iterdir() if self.directory.is_dir() else []:
            if entry.name.endswith(".partial"):
                remove_tree(entry)
            elif (entry / _COMPLETE).is_file():
                entries.append(entry)
        entries.sort(key=lambda e: (e / _COMPLETE).stat().st_mtime, reverse=True)
        removed = []
        for entry in entries[self.keep :]:
            if entry.name not in self._used:
                remove_tree(entry)
                removed.append(entry.name)
        return removed
