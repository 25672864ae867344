"""The checkout's files handed to the agent user while agents run, and given back after.

`CheckoutOwnership.record()` remembers every path's owner (except `.git` and what is under
it) before amelia changes the checkout; `hand_over()` gives those paths, and what amelia's
own git made since, to the agent user;
`give_back()` returns every recorded path (still the same file) to its owner and every
new one to the owner the checkout's root had (the runner's user on GitHub), so the job's
later steps find the files as theirs. `.git` stays amelia's: the agent reads it (status,
diff, log) but writes no hook or config into it.

Nothing follows a symbolic link: links are handed over and back themselves. A new path
that is not the agent's and has other hard links (a link to a file elsewhere) is left as
it is, so give-back never changes the owner of a file outside the checkout.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from amelia.isolation.agent_user import AgentUser

__all__ = ["CheckoutOwnership", "give_git_back", "give_home_to"]


@dataclass(frozen=True)
class _Owner:
    uid: int
    gid: int
    device: int
    inode: int


def _walk(root: Path, *, skip: str | None = ".git") -> Iterator[tuple[Path, os.stat_result]]:
    """Every path under `root` but `root/<skip>`, with its own (not followed) status."""
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if directory == root and entry.name == skip:
                continue
            path = Path(entry.path)
            try:
                status = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            yield path, status
            if stat.S_ISDIR(status.st_mode):
                stack.append(path)


class CheckoutOwnership:
    """The checkout at `root` as the agent user `agent` gets it and gives it back."""

    def __init__(self, root: Path, agent: AgentUser) -> None:
        self.root = root
        self.agent = agent
        self._owners: dict[Path, _Owner] = {}
        self._root_owner: tuple[int, int] | None = None
        self._lock = threading.Lock()

    @property
    def handed_over(self) -> bool:
        return self._root_owner is not None

    def record(self) -> None:
        """Remember every path's owner (once): call it before amelia's own git changes the
        checkout, so the files it makes count as new."""
        with self._lock:
            self._record()

    def _record(self) -> None:
        if self._root_owner is not None:
            return
        status = self.root.lstat()
        self._root_owner = (status.st_uid, status.st_gid)
        self._owners[self.root] = _owner(status)
        for path, found in _walk(self.root):
            self._owners[path] = _owner(found)

    def hand_over(self) -> None:
        """Give the checkout (not `.git`) to the agent user, recording the owners first
        if `record()` was not called; later calls hand over what amelia's own git made
        meanwhile."""
        with self._lock:
            self._record()
            self.agent.own(self.root)
            for path, status in _walk(self.root):
                if (status.st_uid, status.st_gid) != (self.agent.uid, self.agent.gid):
                    self.agent.own(path)

    def give_back(self) -> None:
        """Every recorded path to its owner, every new one to the root's original owner
        (once; later calls do nothing). Stop the agent user's processes first."""
        with self._lock:
            if self._root_owner is None:
                return
            root_uid, root_gid = self._root_owner
            kept = 0
            for path, status in [*_walk(self.root), (self.root, self.root.lstat())]:
                recorded = self._owners.get(path)
                if recorded is not None and (recorded.device, recorded.inode) == (
                    status.st_dev,
                    status.st_ino,
                ):
                    wanted = (recorded.uid, recorded.gid)
                elif status.st_uid == self.agent.uid or (
                    stat.S_ISDIR(status.st_mode) or status.st_nlink == 1
                ):
                    wanted = (root_uid, root_gid)
                else:
                    kept += 1
                    continue
                if (status.st_uid, status.st_gid) != wanted:
                    os.chown(path, *wanted, follow_symlinks=False)
            self._root_owner = None
            self._owners.clear()
        if kept:
            logger.warning("left the owner of {} hard-linked path(s) in the checkout", kept)


def give_git_back(checkout: Path) -> int:
    """Give what amelia's own git made in `checkout/.git` as root back to the owner of
    the checkout's root (the runner's user on GitHub); returns how many paths changed.

    In the Action's container amelia runs as root, so its commits, fetches and rebases
    leave root's objects, refs, `HEAD` and `index` in a checkout that belongs to the
    runner's user, and a later step or the next job's checkout on a self-hosted runner
    fails on them with "Permission denied". Nothing is done unless amelia is root and the
    root of the checkout is another user's. No link is followed, and a file with other hard
    links (one that may also live outside the checkout) keeps its owner."""
    if os.geteuid() != 0:
        return 0
    try:
        top = checkout.lstat()
        git = checkout / ".git"
        git_status = git.lstat()
    except OSError:
        return 0
    if top.st_uid == 0 or not stat.S_ISDIR(git_status.st_mode):
        return 0
    wanted = (top.st_uid, top.st_gid)
    changed = 0
    for path, found in [*_walk(git, skip=None), (git, git_status)]:
        if found.st_uid != 0:
            continue
        if not (stat.S_ISDIR(found.st_mode) or found.st_nlink == 1):
            continue
        try:
            os.chown(path, *wanted, follow_symlinks=False)
        except OSError:
            continue
        changed += 1
    return changed


def give_home_to(agent: AgentUser) -> int:
    """Give what root made in the agent user's HOME (the setup installs there: rustup, nvm,
    `pip install --user`) to that user, so its tools and the test command can use and
    update it; returns how many paths changed. No link is followed, and a file with other
    hard links (one that may live outside HOME) keeps its owner."""
    home = agent.home
    if home is None or os.geteuid() != 0:
        return 0
    changed = 0
    for path, found in _walk(home, skip=None):
        if (found.st_uid, found.st_gid) == (agent.uid, agent.gid):
            continue
        if not (stat.S_ISDIR(found.st_mode) or found.st_nlink == 1):
            continue
        try:
            agent.own(path)
        except OSError:
            continue
        changed += 1
    return changed


def _owner(status: os.stat_result) -> _Owner:
    return _Owner(status.st_uid, status.st_gid, status.st_dev, status.st_ino)
