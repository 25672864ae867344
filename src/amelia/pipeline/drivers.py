"""The one way the pipeline gets its drivers: from the registry, configured by the profile."""

from __future__ import annotations

from typing import Any, Protocol

from amelia.core.types import AgentRole, Profile, ToolProfileName
from amelia.drivers.base import DriverInterface
from amelia.drivers.runtime import DriverEnvironment
from amelia.pipeline.context import MakeDriver

__all__ = ["DriverSource", "default_make_driver"]


class DriverSource(Protocol):
    """How a run's drivers are made: for a profile and what they start from
    (`default_make_driver` is the registry's; a caller hands its own to the Action's engine,
    e.g. `amelia.testing.scripted_agents.model_drivers`)."""

    def __call__(
        self, profile: Profile, *, environment: DriverEnvironment | None = None
    ) -> MakeDriver: ...


def _driver_options(profile: Profile, role: AgentRole) -> dict[str, Any]:
    """What the driver of `role` is created with: the agent's own model and turn limit, else
    the profile's (`Profile.agent`). Unset options are left out so each driver keeps its own
    defaults."""
    agent = profile.agent(role)
    options = {"model": agent.model, "max_turns": agent.max_turns}
    return {name: value for name, value in options.items() if value is not None}


def default_make_driver(
    profile: Profile,
    *,
    driver_key: str | None = None,
    environment: DriverEnvironment | None = None,
) -> MakeDriver:
    """Drivers from the registry, configured from `profile`: each agent's driver key, model
    and max turns (`Profile.agent`), so the reviewer may run on another driver and model
    than the developer.

    `driver_key` replaces every agent's driver with any registered key, also one registered
    at run time (a `Profile` holds only the built-in keys). `environment` (what child
    processes start from, the model credentials, the home directory, the MCP servers each
    agent was given) is handed to every driver that takes one, with its agent's MCP servers
    (`DriverEnvironment.for_role`); amelia builds it from its settings, never from the
    process environment directly.
    """
    from amelia.drivers.factory import DriverFactory

    def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        options = _driver_options(profile, role)
        key = driver_key or profile.agent(role).driver
        own = None if environment is None else environment.for_role(role)
        return DriverFactory.get_driver(key, tool_profile=tool_profile, environment=own, **options)

    return make
