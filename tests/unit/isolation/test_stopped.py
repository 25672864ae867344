"""A process killed by a signal is named by the signal and, when amelia sent it, why."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

from amelia.drivers.api.shell import SafeShellExecutor
from amelia.isolation.stopped import describe_death, send, sent_to


def test_a_signal_amelia_sent_is_named_with_its_reason() -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    send(sleeper.pid, signal.SIGTERM, reason="the job was cancelled")
    assert sleeper.wait(10) == -15
    assert sent_to(sleeper.pid) is not None
    assert describe_death(sleeper.returncode, pid=sleeper.pid) == (
        "killed by SIGTERM (signal 15), sent by amelia: the job was cancelled"
    )


def test_a_signal_from_elsewhere_is_said_to_be_so() -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    sleeper.send_signal(signal.SIGKILL)  # not through amelia
    assert sleeper.wait(10) == -9
    described = describe_death(sleeper.returncode, pid=sleeper.pid)
    assert described is not None
    assert described.startswith("killed by SIGKILL (signal 9), which amelia did not send")
    assert "out-of-memory killer" in described
    assert describe_death(-1, pid=None) == (
        "killed by SIGHUP (signal 1), from outside amelia as far as it knows"
    )
    assert describe_death(0, pid=sleeper.pid) is None
    assert describe_death(3, pid=None) is None


async def test_the_shell_tool_says_which_signal_killed_a_command(tmp_path: Path) -> None:
    shell = SafeShellExecutor(tmp_path, inherited={"PATH": "/usr/bin:/bin"})
    result = await shell.execute("echo before; kill -SEGV $$", timeout_seconds=30)
    assert result.exit_code == -11 and not result.ok
    assert result.describe().startswith(
        "Command was killed by SIGSEGV (signal 11), which amelia did not send"
    )
    assert "before" in result.describe()
    ended = await shell.execute("exit 3", timeout_seconds=30)
    assert ended.describe().startswith("Command failed with exit code 3.")
