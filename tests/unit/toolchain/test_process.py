"""amelia's own shell commands: bounded in time with everything they started, output kept."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from amelia.toolchain import run_shell
from amelia.toolchain.setup import command_line

pytestmark = pytest.mark.timeout(60)


def _env() -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}


async def test_the_exit_code_and_the_last_lines_are_kept(tmp_path: Path) -> None:
    seen: list[str] = []
    ran = await run_shell(
        command_line("for i in $(seq 1 100); do echo line $i; done; echo oops >&2; exit 4"),
        cwd=tmp_path,
        env=_env(),
        timeout_seconds=30,
        on_line=seen.append,
        tail_lines=3,
    )
    assert (ran.exit_code, ran.timed_out, ran.succeeded) == (4, False, False)
    assert ran.tail == "line 99\nline 100\noops"
    assert len(seen) == 101


async def test_the_time_limit_stops_the_command_and_what_it_started(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    ran = await run_shell(
        command_line(f"sleep 300 & echo $! > {marker}; echo started; wait"),
        cwd=tmp_path,
        env=_env(),
        timeout_seconds=1,
    )
    assert ran.timed_out and ran.exit_code is None and not ran.succeeded
    assert ran.tail == "started"
    assert _gone(int(marker.read_text()))


def _gone(pid: int) -> bool:
    """True once `pid` has ended (a zombie waiting for its new parent counts as ended)."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


async def test_a_daemon_holding_the_output_does_not_hold_the_run(tmp_path: Path) -> None:
    marker = tmp_path / "daemon.pid"
    ran = await run_shell(
        command_line(f"(sleep 300 & echo $! > {marker}) ; echo done"),
        cwd=tmp_path,
        env=_env(),
        timeout_seconds=120,  # the test's own time limit (60 s) fails it if the run waits
        linger_seconds=0.1,  # what the daemon could still write is not waited for long
    )
    assert ran.succeeded and not ran.timed_out and ran.tail == "done"
    assert _gone(int(marker.read_text()))  # stopped with the command's process group


async def test_only_the_given_environment_is_seen(tmp_path: Path) -> None:
    ran = await run_shell(
        command_line('echo "${HOME:-no home} $ONLY"'),
        cwd=tmp_path,
        env={**_env(), "ONLY": "this"},
        timeout_seconds=30,
    )
    assert ran.tail == "no home this"
