"""The amelia side of a memory measurement, run as its own process.

`python -m benchmarks.probe KIND WORKDIR` runs one workload against a scripted server that
the parent process hosts (its URL arrives in the environment), then prints one JSON line with
this process's peak RSS. The scripted servers live in the parent and the Claude Code CLI is
a child with its own memory, so the figure is amelia's own.

The peak is VmHWM from /proc/self/status, not `ru_maxrss`: Linux carries the parent's peak
over into a child's `ru_maxrss` across fork and exec, which would report the benchmark
runner's memory instead of the probe's.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
from pathlib import Path
from typing import Literal

from amelia.drivers.base import AgenticMessageType

ProbeKind = Literal["cli-session", "api-session", "pipeline"]
PROBE_KINDS: tuple[ProbeKind, ...] = ("cli-session", "api-session", "pipeline")


async def _session(kind: ProbeKind, workdir: Path) -> None:
    from amelia.drivers.base import DriverInterface
    from benchmarks.sessions import OPENAI_MODEL, SESSION_PROMPT

    driver: DriverInterface
    if kind == "cli-session":
        from amelia.drivers.cli.claude import ClaudeCliDriver

        driver = ClaudeCliDriver(tool_profile="full", amelia_home=workdir / "amelia-home")
    else:
        from amelia.drivers.api.driver import ApiDriver
        from amelia.drivers.runtime import DriverEnvironment

        driver = ApiDriver(
            model=f"openai-chat:{OPENAI_MODEL}",
            amelia_home=workdir / "amelia-home",
            environment=DriverEnvironment(inherited=dict(os.environ)),
        )
    async for message in driver.execute_agentic(SESSION_PROMPT, str(workdir / "session")):
        if message.type == AgenticMessageType.RESULT and message.is_error:
            raise SystemExit(f"session failed: {message.content}")


async def _pipeline(workdir: Path) -> None:
    from amelia.core.state import ExecutionState
    from amelia.core.types import Profile, ToolProfileName
    from amelia.demo import DEMO_ISSUE
    from amelia.drivers.base import DriverInterface
    from amelia.drivers.cli.claude import ClaudeCliDriver
    from amelia.pipeline import AgentRole, RunContext, current_head, run_pipeline
    from amelia.pipeline.sinks import JsonlTranscriptSink

    repo = workdir / "greeter"

    def make_driver(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        return ClaudeCliDriver(
            tool_profile=tool_profile, max_turns=10, amelia_home=workdir / "amelia-home"
        )

    context = RunContext(
        repo_dir=repo,
        make_driver=make_driver,
        profile=Profile(timeout_seconds=300, max_review_iterations=1),
        sinks=[JsonlTranscriptSink(workdir / "events.jsonl")],
        workflow_id="benchmark",
    )
    base = await current_head(repo)
    state = await run_pipeline(ExecutionState(issue=DEMO_ISSUE), context, base_ref=base)
    if state.last_review is None or not state.last_review.approved:
        raise SystemExit("pipeline did not end approved")


def peak_rss_kb() -> int:
    """This process's own peak resident set size in KiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def main(argv: list[str]) -> None:
    kind = next((known for known in PROBE_KINDS if known == argv[0]), None)
    if kind is None:
        raise SystemExit(f"unknown probe {argv[0]}; one of {PROBE_KINDS}")
    target = Path(argv[1])
    if kind == "pipeline":
        asyncio.run(_pipeline(target))
    else:
        asyncio.run(_session(kind, target))
    print(json.dumps({"kind": kind, "max_rss_kb": peak_rss_kb()}))


if __name__ == "__main__":
    main(sys.argv[1:])
