"""What recording a run costs: time on the overhead benchmark's sessions, and bytes.

In a run the drivers reach their model through the credential proxy, and the recorder is
the proxy's observer: the proxy's event loop hands it every exchange, and its own thread
masks each one and appends it to `model.jsonl`. So the overhead benchmark
(benchmarks/overhead.py) plays its sessions a third and a fourth way, each driver behind
the credential proxy as amelia's commands run it, with recording off (no observer) and on
(a `Recorder` writing a recording, finished before the session's time stops, its thread's
CPU time counted with the event loop's), against the same bare side: the ratios say what
the proxy and the recording add to a session.

`recording_sizes` runs `/amelia plan` and `/amelia implement` through the installed `amelia`
console script against the scripted servers (`ActionHarness`) and reports the size of each
run's recording, by file.
"""

from __future__ import annotations

import os
from contextlib import AsyncExitStack
from pathlib import Path

from amelia.drivers.api.driver import ApiDriver
from amelia.drivers.base import DriverInterface
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment
from amelia.isolation.model_access import model_access, model_upstreams
from amelia.replay.recorder import Recorder
from amelia.testing.replay import start_recorder as new_recorder
from amelia.testing.scripted_claude import scripted_claude_environment
from benchmarks.report import Figure

__all__ = [
    "finished_size",
    "recorded_api_driver",
    "recorded_cli_driver",
    "recording_bytes",
    "recording_sizes",
    "start_recorder",
]


def start_recorder(directory: Path) -> Recorder:
    """A recorder writing to `directory`, masking the scripted key as a run masks its own."""
    from benchmarks.sessions import SCRIPTED_KEY

    return new_recorder(directory, secrets=[SCRIPTED_KEY], repository="octo/benchmark")


def recording_bytes(directory: Path) -> int:
    """The bytes of every file of a recording."""
    return sum(path.stat().st_size for path in directory.rglob("*") if path.is_file())


async def recorded_cli_driver(
    stack: AsyncExitStack, server_url: str, config_dir: Path, home: Path, recorder: Recorder | None
) -> DriverInterface:
    """`ClaudeCliDriver` behind the credential proxy (open while `stack` is), with
    `recorder` as the proxy's observer (None: recording off)."""
    from benchmarks.sessions import SCRIPTED_KEY

    upstreams = model_upstreams(
        {"ANTHROPIC_API_KEY": SCRIPTED_KEY}, {"ANTHROPIC_BASE_URL": server_url}
    )
    access = await stack.enter_async_context(model_access(upstreams, observer=recorder))
    environment = {
        **scripted_claude_environment(server_url, config_dir, api_key=None),
        **access.environment,
    }
    return ClaudeCliDriver(tool_profile="full", amelia_home=home, env=environment)


async def recorded_api_driver(
    stack: AsyncExitStack, server_url: str, home: Path, max_turns: int, recorder: Recorder | None
) -> DriverInterface:
    """`ApiDriver` (`openai-chat:`) behind the credential proxy, as `recorded_cli_driver`."""
    from benchmarks.sessions import OPENAI_MODEL, SCRIPTED_KEY

    credentials = {"OPENAI_API_KEY": SCRIPTED_KEY, "OPENAI_BASE_URL": server_url}
    upstreams = model_upstreams(credentials, credentials)
    access = await stack.enter_async_context(model_access(upstreams, observer=recorder))
    return ApiDriver(
        model=f"openai-chat:{OPENAI_MODEL}",
        max_turns=max_turns,
        amelia_home=home,
        environment=DriverEnvironment(
            inherited=dict(os.environ), credentials=dict(access.environment)
        ),
    )


def finished_size(recorder: Recorder | None) -> int:
    """Close the recording and give its size (0 without a recorder)."""
    if recorder is None:
        return 0
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    return recording_bytes(recorder.directory)


def recording_sizes(root: Path) -> list[Figure]:
    """A `/amelia plan` and a `/amelia implement` run (developer and reviewer) through the
    installed console script: each recording's size, and its model exchanges' share."""
    from amelia.testing.action_harness import ActionHarness, ActionRun
    from benchmarks.action import _pipeline_script
    from benchmarks.startup import amelia_command

    program = amelia_command()
    bench = "recording size (`amelia action`, installed console script)"
    figures: list[Figure] = []
    with ActionHarness(root, script=_pipeline_script(root / "workspace")) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
        runs: list[tuple[str, ActionRun]] = []
        for command in ("plan", "implement"):
            event = harness.comment_event(number, f"/amelia {command}")
            result = harness.run("issue_comment", event, program=program)
            if result.exit_code != 0 or "recording" not in result.outputs:
                raise RuntimeError(f"{command} run exited {result.exit_code}: {result.stderr}")
            runs.append((command, result))
            harness.fresh_checkout()
    for command, result in runs:
        directory = harness.runner_temp / "amelia" / "runs" / result.outputs["recording"]
        total = recording_bytes(directory)
        model = (directory / "model.jsonl").stat().st_size
        exchanges = len((directory / "model.jsonl").read_text(encoding="utf-8").splitlines())
        figures += [
            Figure(
                benchmark=bench,
                name=f"/amelia {command}: whole recording",
                value=total / 1024,
                unit="KiB",
                note=f"{exchanges} model exchanges",
            ),
            Figure(
                benchmark=bench,
                name=f"/amelia {command}: model.jsonl",
                value=model / 1024,
                unit="KiB",
            ),
        ]
    return figures
