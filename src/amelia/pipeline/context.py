"""Where and how a run happens: the worktree, the drivers, the profile and the sinks."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Collection, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path

from amelia.core.state import ExecutionState
from amelia.core.types import AgentRole, Profile, StreamEvent, StreamEventType, ToolProfileName
from amelia.drivers.base import DriverInterface
from amelia.git import Git
from amelia.pipeline.project_tests import TestCommand
from amelia.pipeline.sinks import Sink, dispatch

__all__ = [
    "ROLE_TOOL_PROFILES",
    "AgentRole",
    "AgentSession",
    "MakeDriver",
    "RunContext",
    "StageHook",
]

MakeDriver = Callable[[AgentRole, ToolProfileName], DriverInterface]
"""Creates the driver an agent runs on, given its role and the tools it may use."""

AgentSession = Callable[[AgentRole], AbstractAsyncContextManager[None]]
"""Wraps every agent run (e.g. to hand the worktree over and take it back)."""

StageHook = Callable[[AgentRole, ExecutionState], Awaitable[ExecutionState | None]]
"""Runs after a stage (e.g. to commit and push); may return an updated state."""

ROLE_TOOL_PROFILES: dict[AgentRole, ToolProfileName] = {
    "architect": "read_only",
    "developer": "full",
    "reviewer": "read_only",
    "answerer": "read_only",
}


@dataclass(frozen=True)
class RunContext:
    """Where and how a run happens. `repo_dir` is the worktree the agents work in; `git`
    is how amelia's own git runs there (in the Action: the checkout's configuration and
    the bot's address), None for plain git."""

    repo_dir: Path
    make_driver: MakeDriver
    _: KW_ONLY
    profile: Profile = field(default_factory=Profile)
    sinks: Sequence[Sink] = ()
    workflow_id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    agent_session: AgentSession | None = None
    """Entered around every agent run; None: nothing around it."""
    preexisting: Callable[[], Collection[str]] | None = None
    """Paths that were in the worktree before the agents ran (an earlier step's files), so
    not part of the change the reviewer sees; None: none."""
    test_command: TestCommand | None = None
    """Run by amelia after every developer round (`amelia.pipeline.checks`); None: none."""
    git: Git | None = None

    def __post_init__(self) -> None:
        if self.git is not None and self.git.path != self.repo_dir:
            raise ValueError(f"git runs in {self.git.path}, the agents in {self.repo_dir}")

    @property
    def repo_git(self) -> Git:
        """amelia's own git in `repo_dir`: `git`, or plain git there."""
        return self.git if self.git is not None else Git(self.repo_dir)

    def session(self, role: AgentRole) -> AbstractAsyncContextManager[None]:
        """What surrounds one run of `role`'s agent."""
        return nullcontext() if self.agent_session is None else self.agent_session(role)

    def driver_for(self, role: AgentRole) -> DriverInterface:
        return self.make_driver(role, ROLE_TOOL_PROFILES[role])

    def reusing_drivers(self) -> RunContext:
        """The same context, creating one driver per role and reusing it across rounds."""
        made: dict[AgentRole, DriverInterface] = {}
        make = self.make_driver

        def reuse(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
            if role not in made:
                made[role] = make(role, tool_profile)
            return made[role]

        return replace(self, make_driver=reuse)

    async def emit(self, event: StreamEvent) -> None:
        await dispatch(self.sinks, event)

    def event(
        self, kind: StreamEventType, agent: str, content: str, *, error: bool = False
    ) -> StreamEvent:
        return StreamEvent(
            type=kind, content=content, agent=agent, workflow_id=self.workflow_id, is_error=error
        )
