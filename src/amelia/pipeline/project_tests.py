"""The project's test command as the pipeline gets it: what to run, for how long, with which
environment and as whom. `amelia.pipeline.checks` runs it after every developer round."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from amelia.isolation.agent_user import AgentUser
from amelia.toolchain.setup import command_line

__all__ = ["TestCommand"]


@dataclass(frozen=True, kw_only=True)
class TestCommand:
    """The project's test command and how it runs."""

    __test__ = False  # not a pytest test class

    command: str
    timeout_seconds: float = 600.0
    environment: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The variables it starts with: the agents' tools' environment, without secrets."""
    origin: str = "test_command"
    """Where the command was set, named in the finding a failure becomes."""
    agent: AgentUser | None = None
    """The unprivileged user it runs as, like the agents' tools (None: amelia's own)."""

    def argv(self) -> list[str]:
        """The command line to start, as the agent user when there is one."""
        argv = list(command_line(self.command))
        return argv if self.agent is None else self.agent.command(argv)

    def start_environment(self) -> dict[str, str]:
        """`environment`, with the agent user's HOME when there is one."""
        environment = dict(self.environment)
        return environment if self.agent is None else self.agent.environment(environment)
