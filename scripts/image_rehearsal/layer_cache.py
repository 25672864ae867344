"""Overlay layers saved after chosen steps, keyed by the step's cache key.

Each entry holds the changes one run of steps made (an overlayfs upper directory) and the
key of the layer below it. A later rehearsal stacks the newest entry whose key still
matches, with its ancestors, and applies only the steps after it, so an unchanged dependency
layer is reused when only sources changed.
"""

from __future__ import annotations

import os
from pathlib import Path

from scripts.image_rehearsal.mounts import remove_tree
from scripts.image_rehearsal.rootfs import copy_tree

_COMPLETE = "complete"
_PARENT = "parent"
_MAX_DEPTH = 64


class LayerCache:
    def __init__(self, directory: Path, *, keep: int = 10) -> None:
        self.directory = directory
        self.keep = keep
        self._used: set[str] = set()

    def chain(self, key: str, bottom_key: str) -> list[Path] | None:
        """The diff directories from `key` down to (not including) `bottom_key`, newest
        first, or None when any of them is missing."""
        layers: list[Path] = []
        current = key
        while current != bottom_key:
            entry = self.directory / current
            if not (entry / _COMPLETE).is_file() or len(layers) >= _MAX_DEPTH:
                return None
            layers.append(entry / "diff")
            current = (entry / _PARENT).read_text().strip()
        for layer in layers:
            # The marker's mtime records the last use, for pruning least recently used entries.
            os.utime(layer.parent / _COMPLETE)
            self._used.add(layer.parent.name)
        return layers

    def store(self, key: str, parent_key: str, changes: Path) -> Path:
        """Move (or, across filesystems, copy) a detached upper directory into the cache."""
        entry = self.directory / key
        staging = self.directory / f"{key}.partial"
        remove_tree(staging)
        remove_tree(entry)
        staging.mkdir(parents=True)
        try:
            changes.rename(staging / "diff")
        except OSError:
            copy_tree(changes, staging / "diff")
        (staging / _PARENT).write_text(parent_key + "\n")
        (staging / _COMPLETE).write_text(key + "\n")
        staging.rename(entry)
        self._used.add(key)
        return entry / "diff"

    def prune(self) -> list[str]:
        """Drop the least recently used entries beyond `keep`, never one used by this run.
        An entry whose ancestor was dropped is unusable and lingers only until its turn."""
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
