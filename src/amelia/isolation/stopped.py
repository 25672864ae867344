"""Which processes amelia itself signalled, and why: so that an agent's process that died by
a signal can be reported as what it was.

"Claude Code exited with code -9" says nothing a person can act on. A process killed by a
signal was either stopped by amelia (what an agent left running, at the end of a run or
before amelia's git uses the token: `amelia.isolation.leftovers`), or by something else on
the machine (another program, a person, the kernel's out-of-memory killer). `send()`
signals a process and remembers why; `describe_death()` turns a negative exit code into one
sentence naming the signal and, when amelia sent it, the reason.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from dataclasses import dataclass

__all__ = ["SentSignal", "describe_death", "send", "sent_to"]


@dataclass(frozen=True)
class SentSignal:
    """A signal amelia sent to a process, and why."""

    signal: signal.Signals
    reason: str


_sent: dict[int, SentSignal] = {}
_lock = threading.Lock()


def send(pid: int, sig: signal.Signals, *, reason: str) -> None:
    """Send `sig` to `pid` (gone or not ours: nothing happens) and remember why."""
    with _lock:
        _sent[pid] = SentSignal(signal=sig, reason=reason)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def sent_to(pid: int) -> SentSignal | None:
    """The last signal amelia sent to `pid` in this process's life, if any."""
    with _lock:
        return _sent.get(pid)


def _name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def describe_death(returncode: int, *, pid: int | None) -> str | None:
    """For a process that ended with `returncode` (negative: killed by that signal), what
    killed it: `killed by SIGKILL (signal 9), sent by amelia: <why>`, or that amelia did not
    send it. None when it was not killed by a signal. `pid`: the process, when known."""
    if returncode >= 0:
        return None
    number = -returncode
    killed = f"killed by {_name(number)}"
    sent = None if pid is None else sent_to(pid)
    if sent is not None and sent.signal == number:
        return f"{killed}, sent by amelia: {sent.reason}"
    if pid is None:
        return f"{killed}, from outside amelia as far as it knows"
    hint = " (the kernel's out-of-memory killer sends SIGKILL)" if number == signal.SIGKILL else ""
    return f"{killed}, which amelia did not send: another process or the system stopped it{hint}"
