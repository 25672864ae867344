"""A repository's own config files (and others named) at one moment, put back after agents
ran.

An agent with a shell (and, outside a container, the same uid as amelia) can write
`.git/config`: a `pushurl`, an `insteadOf`, a filter or merge driver, an include. amelia
saves the files before an agent runs and writes them back, byte for byte, before its own
git runs again; a file the agent created is removed.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from amelia.git.credentials import common_git_dir
from amelia.git.files import SavedFile
from amelia.git.value import Repo

__all__ = ["ConfigSnapshot"]


@dataclass(frozen=True)
class ConfigSnapshot:
    """The repository's config files (`config`, `config.worktree`) and the `extra` files
    given, as they were."""

    files: tuple[tuple[Path, SavedFile | None], ...]

    @classmethod
    def take(cls, repo: Repo, *, extra: Sequence[Path] = ()) -> ConfigSnapshot:
        git_dir = common_git_dir(repo)
        paths = (git_dir / "config", git_dir / "config.worktree", *extra)
        return cls(files=tuple((path, SavedFile.read(path)) for path in paths))

    def restore(self) -> list[Path]:
        """Put every file back as it was; the paths that had changed."""
        changed = []
        for path, saved in self.files:
            if saved is None:
                if path.is_symlink() or path.exists():
                    with contextlib.suppress(FileNotFoundError):
                        path.unlink()
                    changed.append(path)
            elif not saved.is_current():
                saved.put_back()
                changed.append(path)
        return changed
