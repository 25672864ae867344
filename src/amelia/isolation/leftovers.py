"""Processes the agents leave behind, stopped before amelia's own work goes on.

An agent's shell can start a process that outlives the command (`setsid nohup … &`, a
double fork) and waits: for amelia's token-bearing `git push`, whose environment and
memory a process of the same user can read, or for amelia to put back a file the agents
may not change (the runner's file commands, the checkout's config). So amelia makes
itself the reaper of every orphan among its descendants (`PR_SET_CHILD_SUBREAPER`; in
the Action's container it is pid 1 and is anyway) and, at the end of every agent run and
before every git command that holds the token, stops every descendant that did not exist
when the first agent started (`Leftovers.stop`): first SIGSTOP to all of them until a scan
finds no running one (a stopped process cannot fork), then SIGKILL. What the trusted setup
started before the first agent (a database for the tests, say) is left alone, but not what
such a process starts later (a watcher restarting the agents' code, a new connection's
backend): that may run the agents' code.

Only this process's descendants are ever signalled (`stop_processes`): another amelia run
on the same machine, whose agents run as the same unprivileged user, is its own processes'
reaper and keeps them. Each signal is recorded with its reason (`amelia.isolation.stopped`),
so an agent's process that dies by one is reported as stopped by amelia, and why.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

from amelia.errors import LeftoverProcessError
from amelia.isolation.stopped import send

__all__ = ["LEFTOVER_REASON", "Leftovers", "become_subreaper", "descendants", "stop_processes"]

LEFTOVER_REASON = (
    "it was still running after its agent's turn, and amelia stops what agents leave "
    "running before its own git and at the end of the run"
)
"""Why `Leftovers.stop` stops a process, unless its caller says more."""

_PR_SET_CHILD_SUBREAPER: Final = 36
_STOP_SECONDS: Final = 10.0

Process = tuple[int, int]
"""(pid, start time in clock ticks since boot): one process, even after its pid is reused."""


def become_subreaper() -> bool:
    """Make orphaned descendants of this process its children instead of init's; True when
    done, False where Linux's prctl is absent or refuses."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) == 0


def _stat(pid: str) -> tuple[int, str, int] | None:
    """(parent pid, state, start time) of `pid`, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            raw = handle.read()
    except OSError:
        return None
    # The command name in parentheses may hold spaces and parentheses: split after it.
    fields = raw[raw.rfind(b")") + 2 :].split()
    if len(fields) < 20:
        return None
    return int(fields[1]), fields[0].decode("ascii", "replace"), int(fields[19])


def _of_user(pid: int, uid: int) -> bool:
    """Whether `pid`'s real or effective uid is `uid` (False once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("Uid:"):
                    return str(uid) in line.split()[1:3]
    except OSError:
        return False
    return False


def descendants(*, root: int | None = None, uid: int | None = None) -> dict[Process, str]:
    """Every live descendant of `root` (default: this process) and its state letter;
    zombies and dead processes are left out (they can read nothing). With `uid`, only the
    processes of that user (real or effective), wherever they sit in the tree."""
    root = os.getpid() if root is None else root
    children: dict[int, list[tuple[int, str, int]]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        stat = _stat(entry.name)
        if stat is not None:
            parent, state, started = stat
            children.setdefault(parent, []).append((int(entry.name), state, started))
    found: dict[Process, str] = {}
    pending = [root]
    while pending:
        for pid, state, started in children.get(pending.pop(), []):
            if state not in ("Z", "X", "x") and (uid is None or _of_user(pid, uid)):
                found[(pid, started)] = state
            pending.append(pid)
    return found


def _signal(processes: Iterable[Process], sig: signal.Signals, reason: str) -> None:
    for pid, _ in processes:
        send(pid, sig, reason=reason)


def stop_processes(
    find: Callable[[], dict[Process, str]], *, reason: str
) -> tuple[int, set[Process]]:
    """Stop what `find` lists (descendants of this process, see `descendants`) until it
    lists nothing: SIGSTOP to each until no listed one runs (a stopped process cannot
    fork), then SIGKILL, each signal recorded with `reason`. Returns how many were stopped
    and what still lives after the time limit."""
    deadline = time.monotonic() + _STOP_SECONDS
    frozen: set[Process] = set()
    while True:
        running = {p for p, state in find().items() if state != "T"} - frozen
        if not running:
            break
        _signal(running, signal.SIGSTOP, reason)
        frozen |= running
        if time.monotonic() > deadline:
            break
    _signal(frozen, signal.SIGKILL, reason)
    while (left := set(find())) and time.monotonic() < deadline:
        _signal(left, signal.SIGKILL, reason)
        time.sleep(0.01)
    return len(frozen), left


@dataclass(kw_only=True)
class Leftovers:
    """The processes to keep (`kept`: what existed when the first agent started) and the
    means to stop every other descendant."""

    kept: frozenset[Process] | None = None
    stopped: int = field(default=0)
    """How many processes `stop` ended in all."""

    def begin(self) -> None:
        """Before the first agent: become the reaper of orphans, remember what runs now."""
        if self.kept is not None:
            return
        become_subreaper()
        self.kept = frozenset(descendants())

    def _strays(self) -> dict[Process, str]:
        kept = self.kept or frozenset()
        return {process: state for process, state in descendants().items() if process not in kept}

    def stop(self, *, reason: str = LEFTOVER_REASON) -> int:
        """Stop every descendant started since `begin` (nothing before it: no agent ran);
        how many. Raises `LeftoverProcessError` when some still run after the time limit."""
        if self.kept is None or not sys.platform.startswith("linux"):
            return 0
        stopped, left = stop_processes(self._strays, reason=reason)
        if left:
            raise LeftoverProcessError(
                f"{len(left)} process(es) an agent left behind would not stop "
                f"(pids {', '.join(str(pid) for pid, _ in sorted(left))}); amelia stops here "
                "rather than let them watch its own git"
            )
        self.stopped += stopped
        return stopped
