"""Orchestration overhead: a driver's run of a scripted session against the bare tool.

Claude Code: the bare CLI (`claude -p … --output-format stream-json --verbose` with the
driver's tools, permission mode and environment) versus `ClaudeCliDriver.execute_agentic`.
API: pydantic-ai's `Agent.run` with amelia's tools versus `ApiDriver.execute_agentic`, both on
an `openai-chat:` model answered by the scripted OpenAI server. Runs alternate between the two
sides after one discarded warm-up each; the figure is the ratio of the medians, and of each
side's least run (other processes only ever add time, so on a shared machine the least run
is each side's steadiest estimate). The driver side folds every message into the run's
state as the agents do (`AgentRun.apply`), so the figure is everything amelia adds. Two
sessions: 10 turns of one tool call, and 300 tool calls (30 turns of 10), where a cost per
message that grows with the calls so far would show.

Wall times on a shared machine vary by more than the overhead itself, so the CPU time spent
on the event loop's thread (where the driver, the SDK and pydantic-ai run) is measured too,
with recording on the recording's own thread's as well, and the session's time runs until
the recording is finished: 1 + (driver CPU − bare CPU) / bare wall time bounds the ratio
from above, even when the machine is busy. The driver's least CPU time beyond the bare
side's least, divided by the messages the driver yielded, is amelia's CPU per message: an
upper bound, since it also holds the SDK's parsing of the CLI's stream and the session's
start-up.
"""

from __future__ import annotations

import asyncio
import gc
import json
import os
import ssl
import time
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from functools import cache
from pathlib import Path
from typing import Literal, NamedTuple

import httpx2
from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.usage import UsageLimits

from amelia.agents.agent_run import AgentRun
from amelia.core.state import ExecutionState
from amelia.drivers.api.driver import ApiDriver
from amelia.drivers.api.tools import ToolContext, tools_for_profile
from amelia.drivers.base import AgenticMessage, AgenticMessageType, DriverInterface
from amelia.drivers.cli._claude_tools import tool_permissions
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment
from amelia.replay.recorder import Recorder
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing.scripted_claude import scripted_claude_environment
from benchmarks.recording import (
    finished_size,
    recorded_api_driver,
    recorded_cli_driver,
    start_recorder,
)
from benchmarks.report import Figure, Target, median
from benchmarks.sessions import (
    OPENAI_MODEL,
    SCRIPTED_KEY,
    SESSION_PROMPT,
    anthropic_session,
    bundled_cli,
    new_workdir,
    openai_session,
)

OVERHEAD_TARGET = Target(limit=1.10)
LONG_OVERHEAD_TARGET = Target(limit=1.05)


class Shape(NamedTuple):
    """A scripted session: `turns` model turns of `calls_per_turn` tool calls each."""

    turns: int
    calls_per_turn: int = 1

    @property
    def calls(self) -> int:
        return self.turns * self.calls_per_turn

    def describe(self) -> str:
        if self.calls_per_turn == 1:
            return f"{self.turns}-turn session"
        return f"{self.calls}-call session ({self.turns} turns of {self.calls_per_turn})"


LONG_SESSION = Shape(turns=30, calls_per_turn=10)


class Sample(NamedTuple):
    """One session: wall seconds, CPU seconds of the event loop's thread, messages yielded,
    and the bytes of its recording (when recorded)."""

    wall: float
    cpu: float
    messages: int = 0
    recorded: int = 0
    recording_cpu: float = 0.0
    """The recording's own thread's share of `cpu`."""


Proxy = Literal["none", "recording off", "recording on"]
"""How a driver side reaches the model: directly, or behind the credential proxy as in a
run, without or with the recorder observing it (benchmarks/recording.py)."""


def _recorder(workdir: Path, proxy: Proxy) -> Recorder | None:
    return start_recorder(workdir / "recording") if proxy == "recording on" else None


@contextmanager
def _frozen_heap() -> Iterator[None]:
    """What the process holds before the sessions (its imports, and whatever ran before,
    such as a test session) moved out of the collector's sight while they run, so that the
    full collection each `_Stopwatch` starts with (outside the time it measures) goes over
    the sessions' objects only: ~175 ms over ~228,000 objects in the API benchmark's
    process, far more in a pytest worker's, each time otherwise."""
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


class _Stopwatch:
    """Started right after a full collection: a full pass over the process then only falls
    in a session whose own objects make it due, never in one that an earlier session of
    another side left it to (measured: after the collection, no session of either side
    made one due)."""

    def __init__(self) -> None:
        gc.collect()
        self.wall, self.cpu = time.perf_counter(), time.thread_time()

    def stop(self, messages: int = 0) -> Sample:
        return Sample(time.perf_counter() - self.wall, time.thread_time() - self.cpu, messages)


_Samples = dict[str, list[Sample]]
"""Each side's runs, in the same order: "bare", then the driver's by `Proxy`."""
_PROXIES: tuple[Proxy, ...] = ("none", "recording off", "recording on")


def rotated(index: int) -> list[Literal["bare"] | Proxy]:
    """The sides in the order round `index` runs them: each round starts one side later,
    so no side always runs first or last in its round (a garbage collector's full pass,
    ~175 ms in the API benchmark's process, falls on whichever session makes it due)."""
    sides: list[Literal["bare"] | Proxy] = ["bare", *_PROXIES]
    shift = index % len(sides)
    return sides[shift:] + sides[:shift]


class SessionFailedError(RuntimeError):
    """A scripted session did not run to its end: its time would mean nothing."""


async def _timed_session(
    driver: DriverInterface, workdir: Path
) -> tuple[list[AgenticMessage], Sample]:
    """Play the session through `driver` in `workdir`, folding each message into the state
    as every agent does: its result messages and its time."""
    run = AgentRun("developer", "benchmark", ExecutionState())
    results: list[AgenticMessage] = []
    messages = 0
    watch = _Stopwatch()
    async for message in driver.execute_agentic(SESSION_PROMPT, str(workdir)):
        run.apply(message)
        messages += 1
        if message.type == AgenticMessageType.RESULT:
            results.append(message)
    return results, watch.stop(messages)


def _check_log(workdir: Path, shape: Shape) -> None:
    appended = sorted(int(n) for n in (workdir / "log.txt").read_text(encoding="utf-8").split()[1:])
    expected = list(range(0, shape.calls, 2))
    if appended != expected:
        raise SessionFailedError(f"log.txt holds {appended}, expected {expected}")


async def _bare_cli_once(workdir: Path, config_dir: Path, shape: Shape) -> Sample:
    script = anthropic_session(workdir, shape.turns, shape.calls_per_turn)
    with ScriptedAnthropicServer(script=script) as server:
        driver = ClaudeCliDriver(env=scripted_claude_environment(server.url, config_dir))
        permissions = tool_permissions("full")
        command = [
            str(bundled_cli()),
            "-p",
            SESSION_PROMPT,
            "--output-format",
            "stream-json",
            "--verbose",
            "--tools",
            ",".join(permissions.tools),
            "--allowedTools",
            ",".join(permissions.allowed_tools),
            "--permission-mode",
            permissions.permission_mode,
        ]
        watch = _Stopwatch()
        process = await asyncio.create_subprocess_exec(
            *command,
            cwd=workdir,
            env={**os.environ, **driver.cli_environment()},
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        stdout, stderr = await process.communicate()
        elapsed = watch.stop()
    lines = [json.loads(line) for line in stdout.decode().splitlines() if line.strip()]
    result = lines[-1] if lines else {}
    if process.returncode != 0 or result.get("type") != "result" or result.get("is_error"):
        raise SessionFailedError(
            f"bare CLI exited {process.returncode}: {stderr.decode()[-400:]} {result}"
        )
    _check_log(workdir, shape)
    return elapsed


async def _driver_cli_once(
    workdir: Path, config_dir: Path, home: Path, shape: Shape, proxy: Proxy = "none"
) -> Sample:
    script = anthropic_session(workdir, shape.turns, shape.calls_per_turn)
    with ScriptedAnthropicServer(script=script) as server:
        async with AsyncExitStack() as stack:
            recorder = _recorder(workdir, proxy)
            if proxy == "none":
                environment = scripted_claude_environment(server.url, config_dir)
                driver: DriverInterface = ClaudeCliDriver(
                    tool_profile="full", amelia_home=home, env=environment
                )
            else:
                driver = await recorded_cli_driver(stack, server.url, config_dir, home, recorder)
            results, elapsed = await _timed_session(driver, workdir)
    if len(results) != 1 or results[0].is_error:
        raise SessionFailedError(f"driver run ended with {results}")
    _check_log(workdir, shape)
    return _with_recording(elapsed, recorder)


def _with_recording(sample: Sample, recorder: Recorder | None) -> Sample:
    """`sample` until the recording is finished (its exchanges are written on a thread of
    its own meanwhile): the finish's time, the recording thread's CPU time and the size."""
    if recorder is None:
        return sample
    watch = _Stopwatch()
    size = finished_size(recorder)
    finish = watch.stop()
    return Sample(
        wall=sample.wall + finish.wall,
        cpu=sample.cpu + finish.cpu + recorder.cpu_time,
        messages=sample.messages,
        recorded=size,
        recording_cpu=recorder.cpu_time,
    )


async def _cli_samples(
    root: Path, repetitions: int, shape: Shape, *, warm_up: bool = True
) -> _Samples:
    config_dir = root / "claude-config"
    home = root / "amelia-home"
    samples: _Samples = {"bare": [], **{proxy: [] for proxy in _PROXIES}}
    for index in range(0 if warm_up else 1, repetitions + 1):
        tag = f"{shape.calls}-{index}"
        taken: dict[str, Sample] = {}
        for current in rotated(index):
            if current == "bare":
                workdir = new_workdir(root, f"bare-{tag}")
                taken[current] = await _bare_cli_once(workdir, config_dir, shape)
            else:
                workdir = new_workdir(root, f"driver-{_PROXIES.index(current)}-{tag}")
                taken[current] = await _driver_cli_once(workdir, config_dir, home, shape, current)
        if index > 0:  # the first round warms the CLI's config dir and our imports
            for side, sample in taken.items():
                samples[side].append(sample)
    return samples


def paired_ratios(bare: list[Sample], driven: list[Sample]) -> list[float]:
    """Each round's driver wall time over the same round's bare one (or any two sides of
    the rounds): the sides of a round run back to back, so a machine that is slower for a
    minute slows both (the medians of each side apart would hold the slow minute on one
    side and not the other)."""
    return [d.wall / b.wall for b, d in zip(bare, driven, strict=True)]


def least_extra_cpu(bare: list[Sample], driven: list[Sample]) -> float:
    """The driver's CPU beyond the bare side's, from each side's least CPU time: a busy
    machine only ever adds CPU time (shared caches, a shared core), so the least is the
    steadiest estimate of what a side needs."""
    return min(s.cpu for s in driven) - min(s.cpu for s in bare)


def _ratio_figures(
    benchmark: str,
    bare_name: str,
    bare: list[Sample],
    driven_name: str,
    driven: list[Sample],
    target: Target = OVERHEAD_TARGET,
    suffix: str = "",
) -> list[Figure]:
    """Wall times, their ratio, the extra CPU and amelia's CPU per message; `suffix` tells
    the rows of a second session apart from the first one's."""
    bare_wall = Figure.median_of(benchmark, bare_name, [s.wall for s in bare], "s")
    driven_wall = Figure.median_of(
        benchmark, f"{driven_name}{suffix}", [s.wall for s in driven], "s"
    )
    extra_cpu = median([s.cpu for s in driven]) - median([s.cpu for s in bare])
    return [
        bare_wall,
        driven_wall,
        Figure(
            benchmark=benchmark,
            name=f"overhead ratio (driver / bare){suffix}",
            value=driven_wall.value / bare_wall.value,
            unit="x",
            target=target,
        ),
        Figure(
            benchmark=benchmark,
            name=f"overhead ratio, least of each side (driver / bare){suffix}",
            value=min(s.wall for s in driven) / min(s.wall for s in bare),
            unit="x",
            target=target,
        ),
        Figure(
            benchmark=benchmark,
            name=f"overhead ratio, median of the rounds' own (driver / bare){suffix}",
            value=median(paired_ratios(bare, driven)),
            unit="x",
            target=target,
            samples=tuple(paired_ratios(bare, driven)),
        ),
        Figure(
            benchmark=benchmark,
            name=f"driver's extra CPU on the event-loop thread{suffix}",
            value=extra_cpu,
            unit="s",
            samples=tuple(sample.cpu for sample in driven),
        ),
        Figure(
            benchmark=benchmark,
            name=f"overhead bound (1 + extra CPU / bare wall time){suffix}",
            value=1 + max(0.0, extra_cpu) / bare_wall.value,
            unit="x",
            target=target,
        ),
        Figure(
            benchmark=benchmark,
            name=f"amelia's CPU per message (least extra CPU / messages yielded){suffix}",
            value=least_extra_cpu(bare, driven) / median([s.messages for s in driven]) * 1e6,
            unit="µs",
        ),
    ]


def claude_cli_overhead(
    root: Path,
    repetitions: int,
    turns: int = 10,
    *,
    long_session: Shape | None = LONG_SESSION,
    long_repetitions: int = 3,
) -> list[Figure]:
    """The short session, then (unless `long_session` is None) the long one, which the short
    one's runs have warmed up."""
    figures: list[Figure] = []
    for shape in (Shape(turns), long_session):
        if shape is None:
            continue
        short = shape.calls_per_turn == 1
        runs = repetitions if short else long_repetitions
        with _frozen_heap():
            samples = asyncio.run(_cli_samples(root, runs, shape, warm_up=short))
        figures += _proxy_figures(
            "overhead: Claude Code" + ("" if short else f", {shape.calls} tool calls"),
            f"bare `claude -p` {shape.describe()}",
            samples,
            "ClaudeCliDriver.execute_agentic",
            OVERHEAD_TARGET if short else LONG_OVERHEAD_TARGET,
            "" if short else f", {shape.calls} tool calls",
        )
    return figures


def _proxy_figures(
    benchmark: str,
    bare_name: str,
    samples: _Samples,
    driven_name: str,
    target: Target,
    suffix: str,
) -> list[Figure]:
    """The driver against the bare side directly, then behind the credential proxy with
    recording off and on (each against the same target), and the recording's size."""
    bare = samples["bare"]
    figures = _ratio_figures(
        benchmark, bare_name, bare, driven_name, samples["none"], target, suffix
    )
    for proxy in ("recording off", "recording on"):
        side = _ratio_figures(
            benchmark,
            bare_name,
            bare,
            f"{driven_name} behind the credential proxy",
            samples[proxy],
            target,
            f"{suffix}, {proxy}",
        )
        figures += side[1:]  # the bare side's row is there already
    recorded = [float(sample.recorded) / 1024 for sample in samples["recording on"]]
    figures.append(
        Figure.median_of(benchmark, f"recording of the session{suffix}", recorded, "KiB")
    )
    on_over_off = paired_ratios(samples["recording off"], samples["recording on"])
    figures.append(
        Figure(
            benchmark=benchmark,
            name=f"recording's cost (on / off, median of the rounds' own){suffix}",
            value=median(on_over_off),
            unit="x",
            target=target,
            samples=tuple(on_over_off),
        )
    )
    figures.append(
        Figure.median_of(
            benchmark,
            f"recording's CPU on its own thread{suffix}",
            [sample.recording_cpu * 1000 for sample in samples["recording on"]],
            "ms",
        )
    )
    return figures


@cache
def _tls_context() -> ssl.SSLContext:
    """What httpx builds for every new client unless given one: certifi's ~150 authorities
    parsed (~237 million instructions, tens of milliseconds). Built once per process, as
    the credential proxy builds its upstream client once: a bare side that built it in
    every session carried a cost the driver's sessions behind the proxy do not have."""
    return httpx2.create_ssl_context()


def _chat_client(base_url: str) -> AsyncOpenAI:
    # The client the ApiDriver builds for `openai-chat:` (same retries and timeout).
    return AsyncOpenAI(
        api_key=SCRIPTED_KEY,
        base_url=base_url,
        max_retries=2,
        timeout=600.0,
        http_client=DefaultAsyncHttpxClient(verify=_tls_context()),
    )


async def _bare_api_once(workdir: Path, shape: Shape) -> Sample:
    script = openai_session(shape.turns, shape.calls_per_turn)
    with ScriptedOpenAIServer(script=script, model=OPENAI_MODEL) as server:
        watch = _Stopwatch()
        # Closed before its event loop ends, as the ApiDriver closes its own: pydantic-ai
        # leaves a client it is handed open.
        async with _chat_client(server.url) as client:
            model = OpenAIChatModel(OPENAI_MODEL, provider=OpenAIProvider(openai_client=client))
            agent: Agent[ToolContext, str] = Agent(
                model, deps_type=ToolContext, tools=tools_for_profile("full")
            )
            result = await agent.run(
                SESSION_PROMPT,
                deps=ToolContext(workdir),
                usage_limits=UsageLimits(request_limit=shape.turns + 1),
            )
        elapsed = watch.stop()
        left = server.remaining_turns
    if left or result.usage.requests != shape.turns + 1:
        raise SessionFailedError(f"pydantic-ai made {result.usage.requests} requests, {left} left")
    return elapsed


async def _driver_api_once(
    workdir: Path, home: Path, shape: Shape, proxy: Proxy = "none"
) -> Sample:
    script = openai_session(shape.turns, shape.calls_per_turn)
    with ScriptedOpenAIServer(script=script, model=OPENAI_MODEL) as server:
        async with AsyncExitStack() as stack:
            recorder = _recorder(workdir, proxy)
            if proxy == "none":
                credentials = {"OPENAI_API_KEY": SCRIPTED_KEY, "OPENAI_BASE_URL": server.url}
                driver: DriverInterface = ApiDriver(
                    model=f"openai-chat:{OPENAI_MODEL}",
                    max_turns=shape.turns + 1,
                    amelia_home=home,
                    environment=DriverEnvironment(
                        inherited=dict(os.environ), credentials=credentials
                    ),
                )
            else:
                driver = await recorded_api_driver(
                    stack, server.url, home, shape.turns + 1, recorder
                )
            results, elapsed = await _timed_session(driver, workdir)
        left = server.remaining_turns
    if left or len(results) != 1 or results[0].is_error:
        raise SessionFailedError(f"ApiDriver run ended with {results}, {left} turns left")
    return _with_recording(elapsed, recorder)


async def _api_samples(
    root: Path, repetitions: int, shape: Shape, *, warm_up: bool = True
) -> _Samples:
    home = root / "amelia-home"
    samples: _Samples = {"bare": [], **{proxy: [] for proxy in _PROXIES}}
    for index in range(0 if warm_up else 1, repetitions + 1):
        tag = f"{shape.calls}-{index}"
        taken: dict[str, Sample] = {}
        for current in rotated(index):
            if current == "bare":
                taken[current] = await _bare_api_once(new_workdir(root, f"bare-api-{tag}"), shape)
            else:
                workdir = new_workdir(root, f"api-{_PROXIES.index(current)}-{tag}")
                taken[current] = await _driver_api_once(workdir, home, shape, current)
        if index > 0:
            for side, sample in taken.items():
                samples[side].append(sample)
    return samples


def api_overhead(
    root: Path,
    repetitions: int,
    turns: int = 10,
    *,
    long_session: Shape | None = LONG_SESSION,
    long_repetitions: int = 3,
) -> list[Figure]:
    """The short session, then (unless `long_session` is None) the long one, which the short
    one's runs have warmed up."""
    figures: list[Figure] = []
    for shape in (Shape(turns), long_session):
        if shape is None:
            continue
        short = shape.calls_per_turn == 1
        runs = repetitions if short else long_repetitions
        with _frozen_heap():
            samples = asyncio.run(_api_samples(root, runs, shape, warm_up=short))
        figures += _proxy_figures(
            "overhead: API" + ("" if short else f", {shape.calls} tool calls"),
            f"pydantic-ai Agent.run {shape.describe()}",
            samples,
            "ApiDriver.execute_agentic",
            OVERHEAD_TARGET if short else LONG_OVERHEAD_TARGET,
            "" if short else f", {shape.calls} tool calls",
        )
    return figures
