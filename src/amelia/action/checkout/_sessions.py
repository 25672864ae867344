"""Around every agent run: what the agent may not keep is put back, what it left is stopped.

Before the first run the worktree's state is recorded (`amelia.git.WorktreeBaseline`),
so that only the agents' work is committed, and so are the commits on the server as
amelia knows them before agents can write `.git/` (`published_at_start`). Around each
run, the repository's config files (and amelia's own config files) and the runner's file
commands (`amelia.action.checkout._runner_files`) are saved before and put back after, so nothing
an agent wrote there reaches amelia's next git command or a later step of the job. After
each run, what the agent left running is stopped (`amelia.isolation.leftovers`).

With an agent user (`amelia.isolation.agent_user`) the checkout's files (not `.git`) are
handed to it before every run and given back at the end (`amelia.isolation.ownership`),
and every process of it this run started is stopped after every run, before amelia's
git uses the token and at the end.

`stop_agents()` and `end()` return the proof of that (`AgentsStopped`), which the
credential guard asks for before it hands out the token or puts it back.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import final

from loguru import logger

from amelia.action.checkout._runner_files import RunnerFiles
from amelia.git import (
    ConfigSnapshot,
    Git,
    WorktreeBaseline,
    WorktreeListing,
    remote_tracking_commits,
)
from amelia.isolation.agent_user import AgentUser
from amelia.isolation.leftovers import Leftovers
from amelia.isolation.ownership import CheckoutOwnership

__all__ = ["AgentSessions", "AgentsStopped"]


@final
class AgentsStopped:
    """The proof `AgentSessions` gives when it has stopped every process of this run's
    agents: it holds while no agent run has begun since."""

    def __init__(self, sessions: AgentSessions, *, runs: int) -> None:
        self._sessions = sessions
        self._runs = runs

    def holds(self) -> bool:
        """True while no agent runs and none has started since the stop."""
        return self._sessions.runs == self._runs and not self._sessions.running


class AgentSessions:
    """The agent runs in the checkout `git` runs in."""

    def __init__(
        self,
        git: Git,
        *,
        agent: AgentUser | None = None,
        runner_files: RunnerFiles | None = None,
        own_config_files: Sequence[Path] = (),
        before_first: Callable[[WorktreeListing], None] | None = None,
    ) -> None:
        self.git = git
        self.agent = agent
        """The unprivileged user agents run as (None: amelia's own)."""
        self._ownership = None if agent is None else CheckoutOwnership(git.path, agent)
        self._own_config_files = tuple(own_config_files)
        """amelia's config files put back after every run with the repository's own."""
        self._before_first = before_first
        """Called once, before the first agent, with the worktree as git lists it then (the
        guard hides earlier steps' credentials)."""
        self._runner_files = runner_files or RunnerFiles({})
        """The runner's file commands, put back after every agent run."""
        self._runner_files_before: RunnerFiles | None = None
        self._runner_files_first: RunnerFiles | None = None
        """Before the first agent, the runner's files amelia never writes itself."""
        self._snapshot: ConfigSnapshot | None = None
        self._lock = threading.Lock()
        self.baseline: WorktreeBaseline | None = None
        """The worktree before the first agent ran (None: none ran yet)."""
        self.published_at_start: tuple[str, ...] | None = None
        """Commits on the server as amelia knew them before agents could write `.git/`
        (None: no agent ran yet)."""
        self.leftovers = Leftovers()
        """What agents left running: stopped after every agent run, before the token is
        used and at the end."""
        self.runs = 0
        """Agent runs begun so far."""
        self.running = 0
        """Agent runs going on now."""

    def record_owners(self) -> None:
        """With an agent user, remember every path's owner before amelia's own git changes
        the checkout, so the end gives each back (see `CheckoutOwnership.record`)."""
        if self._ownership is not None:
            self._ownership.record()

    def preexisting_paths(self) -> frozenset[str]:
        """Paths that are as they were before the first agent ran: earlier steps' files."""
        return frozenset() if self.baseline is None else self.baseline.unchanged()

    @asynccontextmanager
    async def around(self, role: str) -> AsyncIterator[None]:
        """Around one run of `role`'s agent (see the module docstring)."""
        self._before()
        try:
            yield
        finally:
            # Synchronous on purpose: a cancelled run must still put everything back.
            self._after(role)

    def stop_agents(self) -> AgentsStopped:
        """Stop every process an agent left running and every process of the agent user
        this run started (a daemon an agent left could watch for amelia's token-bearing
        git; another run's are left alone). Raises `LeftoverProcessError` or
        `AgentUserError` when one survives."""
        self.leftovers.stop()
        self._stop_agent_user()
        return AgentsStopped(self, runs=self.runs)

    def end(self) -> AgentsStopped:
        """After the last agent: stop what agents left (raising `LeftoverProcessError`, and
        so keeping the token hidden, when some would not stop), put back the runner's files
        amelia never writes as they were before the first agent, stop every process of the
        agent user and give the checkout's files back to their owners (new ones to the
        checkout root's); if one survives, nothing is given back (`AgentUserError`)."""
        self.leftovers.stop()
        if self._runner_files_first is not None:
            for path in self._runner_files_first.restore():
                logger.warning("the runner's file {} changed after the agents; put it back", path)
        with self._lock:
            self._stop_agent_user()
            if self._ownership is not None:
                self._ownership.give_back()
        return AgentsStopped(self, runs=self.runs)

    def _stop_agent_user(self) -> None:
        if self.agent is not None:
            self.agent.stop_processes()

    def _before(self) -> None:
        first = self.baseline is None
        # From here every earlier proof is out of date; the run counts as running once it
        # can start (a failure before that, such as a checkout the agent cannot write,
        # leaves nothing running).
        self.runs += 1
        self.leftovers.begin()
        self._runner_files_before = self._runner_files.take()
        if self._runner_files_first is None:
            self._runner_files_first = self._runner_files_before.never_written_by_amelia()
        if first:
            self._first()
        if self._ownership is not None:
            # Also what amelia's own git made since the last agent (a rebase, a checkout).
            self._ownership.hand_over()
            if first and self.agent is not None:
                # Before any model request: a checkout the agent cannot write would let a
                # paid run go on with every edit failing.
                self.agent.check_access(self.git.path)
        self._snapshot = ConfigSnapshot.take(self.git, extra=self._own_config_files)
        self.running += 1

    def _first(self) -> None:
        agent = self.agent
        if agent is not None:
            logger.info(
                "agents run as user {}, uid {}, gid {}; the checkout is theirs until the end",
                agent.name,
                agent.uid,
                agent.gid,
            )
        # One listing for both: hiding the earlier steps' credential files only empties
        # them in place, so the paths git lists stay the same; their content is read after.
        listing = WorktreeListing.take(self.git)
        if self._before_first is not None:
            self._before_first(listing)
        self.baseline = WorktreeBaseline.capture(self.git, listing=listing)
        self.published_at_start = remote_tracking_commits(self.git)

    def _after(self, role: str) -> None:
        # First what the agent left running, which could change the files again; the files
        # are put back even when some would not stop (the run fails then, and the token
        # stays hidden).
        try:
            stopped = self.leftovers.stop()
            if stopped:
                logger.warning("stopped {} process(es) the {} agent left running", stopped, role)
            self._stop_agent_user()
        finally:
            self.running -= 1
            self._put_back(role)

    def _put_back(self, role: str) -> None:
        runner_files, self._runner_files_before = self._runner_files_before, None
        if runner_files is not None:
            for path in runner_files.restore():
                logger.warning(
                    "the {} agent changed the runner's file {}; amelia put it back", role, path
                )
        snapshot, self._snapshot = self._snapshot, None
        if snapshot is None:
            return
        changed = snapshot.restore()
        if changed:
            logger.warning(
                "the {} agent changed {}; amelia put the file(s) back before its own git ran",
                role,
                ", ".join(str(path) for path in changed),
            )
