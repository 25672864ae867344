"""What the Action's engine reaches outside itself, and how a caller hands it its own.

As `httpx.Client(transport=…)` takes the transport and pydantic-ai's `Agent.override`
takes the model, `run_action(ports=ActionPorts(...))` takes the run's GitHub, the agents'
drivers, the clock, where amelia's git finds `origin` and the streams the runner reads;
every part left None is the real one. Everything else runs as on a runner: the settings
from the request's environment, the routing, the permission check, the checkout with its
credential guard, the agents' tools, the publisher's push, the dry run (which wraps a
given GitHub like the real one), the report.

    ports = ActionPorts(
        github=InMemoryGitHub(state, "octo/app"),
        drivers=model_drivers({"architect": FunctionModel(answer)}),
        clock=Clock(monotonic=lambda: 0.0, now=lambda: datetime(2026, 1, 2, tzinfo=UTC)),
    )
    exit_code = run_action(request=ActionRequest(environ=environ), ports=ports)
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from amelia.github.port import GitHubPort
    from amelia.pipeline.drivers import DriverSource

__all__ = ["ActionPorts", "Clock"]


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True)
class Clock:
    """The run's time.

    - `monotonic`: seconds for durations, the progress comment's pace and the time a run
      took.
    - `now`: the wall clock, an aware datetime (taken as UTC). The engine reads it once, as
      the run's start: a plan file name's `{date}` is its UTC day, and a recording keeps it,
      so a replay on the recorded start names the plan file as the run did.
    """

    _: KW_ONLY
    monotonic: Callable[[], float] = time.monotonic
    now: Callable[[], datetime] = _utc_now


@dataclass(frozen=True)
class ActionPorts:
    """The engine's outside world; None: the real one.

    - `github`: the repository on GitHub, in place of the REST adapter the settings' token
      and API URL open. A token is still required, a dry run still records every write of
      this port instead of making it, and no recording is made of a given GitHub.
    - `drivers`: how the agents' drivers are made for a profile and an environment (default:
      the registry, as the profile says; `amelia.testing.scripted_agents.model_drivers`
      runs every agent on a given pydantic-ai model through the API driver and its tools).
    - `clock`: see `Clock`.
    - `origin_url`: where amelia's git fetches from and pushes to as `origin` (default: the
      repository on the runner's GitHub server on a runner; else the checkout's own
      `origin`).
    - `stdout`: where workflow commands and dry-run writes go (default: `sys.stdout`);
      `stderr`: where amelia's log records go (default: `sys.stderr`).
    """

    _: KW_ONLY
    github: GitHubPort | None = None
    drivers: DriverSource | None = None
    clock: Clock = field(default_factory=Clock)
    origin_url: str | None = None
    stdout: TextIO | None = None
    stderr: TextIO | None = None
