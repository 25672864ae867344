"""Run one shell command for amelia itself (never for a model): in a given directory and
environment, bounded in time, its output (stdout and stderr together) handed line by line
to a callback and its last lines kept.

The command gets its own process group, so at the time limit (or when the run is
cancelled) everything it started is stopped with it: SIGTERM, then SIGKILL after a short
grace. A background process that keeps the output open does not hold the run: once the
command itself has exited, its output is read for a moment more (`linger_seconds`, 3 s)
and the group is stopped.
The process is watched from a worker thread (asyncio's own subprocess waits for every
holder of the output pipe to close it, which a daemon never does).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

__all__ = ["TAIL_LINES", "ShellRun", "run_shell"]

TAIL_LINES = 40
"""How many of the last output lines are kept."""
_TAIL_LINE_CHARS = 500
_GRACE_SECONDS = 3.0
_LINGER_SECONDS = 3.0
_POLL_SECONDS = 0.25


@dataclass(frozen=True)
class ShellRun:
    """How a command ended. `exit_code` is None when it was stopped at its time limit."""

    exit_code: int | None
    timed_out: bool
    tail: str
    duration_seconds: float

    @property
    def succeeded(self) -> bool:
        return self.exit_code == 0 and not self.timed_out


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM to the whole group, SIGKILL to what is left after the grace."""
    _signal_group(process, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(_GRACE_SECONDS)
    _signal_group(process, signal.SIGKILL)
    process.wait()


def _pump(stream: IO[bytes], tail: deque[str], on_line: Callable[[str], None] | None) -> None:
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        if len(line) > _TAIL_LINE_CHARS:
            line = line[:_TAIL_LINE_CHARS] + "…"
        tail.append(line)
        if on_line is not None:
            with contextlib.suppress(Exception):  # a failing log line never stops the command
                on_line(line)


def _run(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    timeout_seconds: float,
    on_line: Callable[[str], None] | None,
    tail_lines: int,
    linger_seconds: float,
    cancelled: threading.Event,
) -> ShellRun:
    started = time.monotonic()
    tail: deque[str] = deque(maxlen=tail_lines)
    process = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    assert process.stdout is not None
    reader = threading.Thread(target=_pump, args=(process.stdout, tail, on_line), daemon=True)
    reader.start()
    deadline = started + timeout_seconds
    timed_out = False
    try:
        while process.poll() is None:
            if cancelled.is_set():
                break
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(min(left, _POLL_SECONDS))
        # Read what is left for a moment; a daemon it started may hold the output open.
        reader.join(0.2 if timed_out else linger_seconds)
    finally:
        if process.poll() is None or reader.is_alive():
            _stop_group(process)
        reader.join(_GRACE_SECONDS)
        process.stdout.close()
    return ShellRun(
        exit_code=None if timed_out else process.returncode,
        timed_out=timed_out,
        tail="\n".join(tail),
        duration_seconds=time.monotonic() - started,
    )


async def run_shell(
    argv: Sequence[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout_seconds: float,
    on_line: Callable[[str], None] | None = None,
    tail_lines: int = TAIL_LINES,
    linger_seconds: float = _LINGER_SECONDS,
) -> ShellRun:
    """Run `argv` (no shell of ours: pass `bash -c …` for a command line) to its end or
    to `timeout_seconds`; cancelling the caller stops the command. `on_line` is called
    from a worker thread. Once the command has exited, output is read for up to
    `linger_seconds` more while something it started still holds it open; then that is
    stopped. Raises `OSError` when it cannot start at all."""
    cancelled = threading.Event()
    work = asyncio.to_thread(
        _run, argv, cwd, env, timeout_seconds, on_line, tail_lines, linger_seconds, cancelled
    )
    task = asyncio.ensure_future(work)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        cancelled.set()
        with contextlib.suppress(Exception):
            await task
        raise
