"""The developer's work and the implement run shared by the tests of refused pushes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from amelia.drivers.base import AgenticMessage, DriverUsage
from amelia.testing.scripted_driver import RecordedCall, result
from tests.faults.conftest import EngineBench, EngineRun

__all__ = ["BRANCH", "GREET", "implement", "plan", "pull", "writes"]

BRANCH = "amelia/issue-1"
GREET = 'def shout(name: str) -> str:\n    return f"HELLO, {name.upper()}!"\n'


def writes(
    files: dict[str, str | int], *, cost: float | None = None
) -> Callable[[RecordedCall], list[AgenticMessage]]:
    """A developer that writes `files` (a str: its text; an int: that many zero bytes) and
    reports `cost`."""

    def develop(call: RecordedCall) -> list[AgenticMessage]:
        assert call.cwd is not None
        for name, content in files.items():
            path = Path(call.cwd) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, int):
                with path.open("wb") as handle:
                    handle.truncate(content)
            else:
                path.write_text(content, encoding="utf-8")
        usage = None if cost is None else DriverUsage(cost_usd=cost)
        return [result("Wrote " + ", ".join(files), usage=usage)]

    return develop


def plan(bench: EngineBench) -> None:
    """The issue and its plan on origin, before origin's rules are set."""
    h = bench.harness
    h.add_planned_issue("A greeting helper and a CI workflow", "Add shout() and run CI.")
    h.fresh_checkout()


def implement(bench: EngineBench, inputs: dict[str, str] | None = None) -> EngineRun:
    """`/amelia implement` on issue 1 (planned first unless it is), with `inputs`."""
    h = bench.harness
    if BRANCH not in h.origin_branches():
        plan(bench)
    extra = {f"INPUT_{name.upper()}": value for name, value in (inputs or {}).items()}
    return bench.run("issue_comment", h.comment_event(1, "/amelia implement"), extra)


def pull(bench: EngineBench) -> dict[str, Any]:
    """The one pull request on the local GitHub."""
    (found,) = bench.github.pulls(bench.harness.repo)
    return found
