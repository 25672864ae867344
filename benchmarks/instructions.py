"""Instructions, not seconds: the API driver's session against bare pydantic-ai, counted.

On a shared machine the same scripted session's CPU time moves by a third from one run to
the next (the bare 300-call session: 2.94 s to 4.18 s of the event loop's CPU over ten runs
on 2026-11-27), several times what amelia adds to it, so the wall-time ratios of
`overhead-api` land on either side of their 1.05 target from one run to the next. The
instructions a session executes do not depend on what else the machine does.

Each side runs in a process of its own under `valgrind --tool=callgrind` with
instrumentation off. After one warm-up session (imports, pydantic's schemas, the first
connection) the process turns instrumentation on with `callgrind_control`, plays one
session, and turns it off: the count is that session's and nothing else's. It holds what
runs in the process's threads: the event loop with pydantic-ai (and on the driver's side
amelia's driver, the credential proxy and, with recording on, the recording's thread until
the recording is finished) and the scripted server's thread, which does the same work for
every side. System calls' time in the kernel is not counted (socket and file writes, the
shell tool's processes, whose own instructions are not counted either: valgrind follows no
child).

    uv run python -m benchmarks --only overhead-api-instructions     # ~15 minutes
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal, NamedTuple, cast, get_args

from benchmarks.report import Figure

Side = Literal["bare", "none", "recording off", "recording on"]
SIDES: tuple[Side, ...] = get_args(Side)
_DESCRIPTION: dict[Side, str] = {
    "bare": "pydantic-ai Agent.run",
    "none": "ApiDriver.execute_agentic",
    "recording off": "ApiDriver.execute_agentic behind the credential proxy, recording off",
    "recording on": "ApiDriver.execute_agentic behind the credential proxy, recording on",
}
_QUALIFIER: dict[Side, str] = {
    "bare": "",
    "none": "",
    "recording off": " behind the proxy, recording off",
    "recording on": " behind the proxy, recording on",
}
_COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)
_REPOSITORY = Path(__file__).resolve().parent.parent


class CountError(RuntimeError):
    """A side's process did not report one counted session."""


class Count(NamedTuple):
    """One side's counted session: instructions, and the messages it played."""

    side: Side
    instructions: int
    messages: int


def unavailable() -> str | None:
    """Why instructions cannot be counted here, or None."""
    for program in ("valgrind", "callgrind_control"):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install valgrind)"
    return None


def collected(valgrind_output: str) -> int:
    """The instructions callgrind reports as collected when its process ends."""
    found = _COLLECTED.findall(valgrind_output)
    if len(found) != 1:
        raise CountError(f"callgrind reported {len(found)} totals: {valgrind_output[-600:]}")
    return int(found[0])


def _instrument(on: bool) -> None:
    """Turn callgrind's instrumentation of this process on or off, and wait until it is."""
    try:
        done = subprocess.run(
            ["callgrind_control", "-i", "on" if on else "off", str(os.getpid())],
            capture_output=True,
            text=True,
            check=False,
        )
    except FileNotFoundError:
        raise CountError("callgrind_control is not installed (apt-get install valgrind)") from None
    # callgrind_control exits 0 even when it finds no such process: only "OK." says it acted.
    if done.returncode != 0 or "OK." not in done.stdout:
        raise CountError(f"callgrind_control did not answer: {done.stdout}{done.stderr}")


async def _session(side: Side, root: Path, tag: str, turns: int, calls: int) -> int:
    from benchmarks.overhead import Shape, _bare_api_once, _driver_api_once
    from benchmarks.sessions import new_workdir

    shape = Shape(turns, calls)
    workdir = new_workdir(root, f"{side.replace(' ', '-')}-{tag}")
    if side == "bare":
        await _bare_api_once(workdir, shape)
        return 0
    sample = await _driver_api_once(workdir, root / "amelia-home", shape, side)
    return sample.messages


def play(side: Side, root: Path, turns: int, calls: int, *, counted: bool) -> int:
    """A warm-up session, then the one counted (instrumented only when `counted`): the
    messages the counted one yielded (0 for the bare side)."""

    async def both() -> int:
        if counted:  # instrumentation is off already: this checks callgrind answers at all
            _instrument(False)
        await _session(side, root, "warm-up", turns, calls)
        # What the process holds now (its imports, the warm-up's leftovers) out of the
        # collector's sight, as `overhead-api` does: the full collection each session's
        # stopwatch starts with then goes over the counted session's objects only.
        gc.collect()
        gc.freeze()
        if counted:
            _instrument(True)
        try:
            return await _session(side, root, "counted", turns, calls)
        finally:
            if counted:
                _instrument(False)

    return asyncio.run(both())


def count(side: Side, root: Path, turns: int, calls: int) -> Count:
    """Play `side` in a process of its own under callgrind and read its count."""
    side_root = root / side.replace(" ", "-")
    side_root.mkdir(parents=True)
    command = [
        "valgrind",
        "--tool=callgrind",
        "--instr-atstart=no",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "benchmarks.instructions",
        side,
        str(side_root),
        "--turns",
        str(turns),
        "--calls",
        str(calls),
        "--counted",
    ]
    path = os.pathsep.join(filter(None, [str(_REPOSITORY), os.environ.get("PYTHONPATH")]))
    # The same hashes in every run: a set's order does not change what a side executes.
    environment = {**os.environ, "PYTHONPATH": path, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        command, capture_output=True, text=True, env=environment, cwd=side_root, check=False
    )
    if done.returncode != 0:
        raise CountError(f"{side} exited {done.returncode}: {done.stderr[-800:]}")
    messages = int(json.loads(done.stdout.strip().splitlines()[-1])["messages"])
    return Count(side, collected(done.stderr), messages)


def instruction_figures(
    root: Path, turns: int, calls: int, *, sides: Sequence[Side] = SIDES
) -> list[Figure]:
    """Every side counted (as many at once as there are CPUs), and each driver side's
    count over the bare side's, against the overhead benchmark's target."""
    from benchmarks.overhead import LONG_OVERHEAD_TARGET, OVERHEAD_TARGET, Shape

    shape = Shape(turns, calls)
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        counts = list(pool.map(lambda side: count(side, root, turns, calls), sides))
    suffix = "" if calls == 1 else f", {shape.calls} tool calls"
    benchmark = f"overhead: API, instructions{suffix}"
    target = OVERHEAD_TARGET if calls == 1 else LONG_OVERHEAD_TARGET
    by_side = {found.side: found for found in counts}
    figures = [
        Figure(
            benchmark=benchmark,
            name=f"{_DESCRIPTION[found.side]} {shape.describe()}"
            if found.side == "bare"
            else _DESCRIPTION[found.side],
            value=found.instructions,
            unit="instructions",
        )
        for found in counts
    ]
    bare = by_side.get("bare")
    if bare is None:
        return figures
    for found in counts:
        if found.side == "bare":
            continue
        figures.append(
            Figure(
                benchmark=benchmark,
                name=f"instructions ratio (driver{_QUALIFIER[found.side]} / bare)",
                value=found.instructions / bare.instructions,
                unit="x",
                target=target,
            )
        )
        if found.messages:
            figures.append(
                Figure(
                    benchmark=benchmark,
                    name=f"amelia's instructions per message{_QUALIFIER[found.side]}",
                    value=(found.instructions - bare.instructions) / found.messages,
                    unit="instructions",
                )
            )
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    """One side's process: play it and print the counted session's messages as JSON."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.instructions")
    parser.add_argument("side", choices=SIDES)
    parser.add_argument("root", type=Path)
    parser.add_argument("--turns", type=int, default=30)
    parser.add_argument("--calls", type=int, default=10)
    parser.add_argument(
        "--counted", action="store_true", help="turn callgrind's instrumentation on around it"
    )
    arguments = parser.parse_args(argv)
    root: Path = arguments.root
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        parser.error(f"{root} must be an empty directory or one that can be made")
    side = cast(Side, arguments.side)
    try:
        messages = play(
            side, arguments.root, arguments.turns, arguments.calls, counted=arguments.counted
        )
    except CountError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"side": side, "messages": messages}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
