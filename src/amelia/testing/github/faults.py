"""Faults the local GitHub injects instead of answering: error statuses, rate limits, lost
connections, slow answers, answers held back until other requests arrive. Queued per
request (`METHOD path`, the path a regex), each fault answers one request, in order."""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["SECONDARY_RATE_LIMIT_MESSAGE", "Fault", "FaultQueues"]

SECONDARY_RATE_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)


@dataclass(frozen=True)
class Fault:
    """What to do instead of answering one request.

    `kind="status"` answers `status` with `headers` and a JSON `message`; `"reset"` drops the
    connection without a response; `"stall"` waits `stall_seconds` and then drops it;
    `"delay"` waits `stall_seconds` and then answers normally (a slow GitHub, or two
    clients racing); `"lost"` carries the request out, then waits `stall_seconds` and drops
    the connection (GitHub acted, but its answer never arrived). A delay with a `gate`
    waits at it instead, until every request holding the same gate has arrived (see
    `held_together`). In memory (`InMemoryGitHub`) nothing waits: a stall is a timeout at
    once, a delay no delay.
    """

    kind: Literal["status", "reset", "stall", "delay", "lost"] = "status"
    status: int = 502
    headers: dict[str, str] = field(default_factory=dict)
    message: str = "Server Error"
    stall_seconds: float = 5.0
    gate: threading.Barrier | None = field(default=None, compare=False, repr=False)
    """With `"delay"`: answer once all the gate's parties have arrived, or after
    `stall_seconds` at most, instead of after `stall_seconds`."""

    @classmethod
    def held_together(cls, count: int, *, at_most: float = 60.0) -> list[Fault]:
        """`count` delays answered together once the last of their requests arrives (after
        `at_most` seconds when it never does): two clients racing, made certain, since each
        request is answered only once the other was made."""
        gate = threading.Barrier(count)
        return [cls(kind="delay", stall_seconds=at_most, gate=gate) for _ in range(count)]

    def wait(self) -> None:
        """Hold a delayed answer back: at the gate, or for `stall_seconds`."""
        if self.gate is None:
            time.sleep(self.stall_seconds)
            return
        with contextlib.suppress(threading.BrokenBarrierError):
            self.gate.wait(self.stall_seconds)

    @classmethod
    def retry_after(cls, seconds: int, status: int = 429) -> Fault:
        return cls(
            status=status, headers={"Retry-After": str(seconds)}, message="Too Many Requests"
        )

    @classmethod
    def rate_limit_reset(cls, reset_epoch: int) -> Fault:
        return cls(
            status=403,
            headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset_epoch)},
            message="API rate limit exceeded for installation.",
        )

    @classmethod
    def secondary_rate_limit(cls) -> Fault:
        return cls(status=403, message=SECONDARY_RATE_LIMIT_MESSAGE)


class FaultQueues:
    """Faults waiting for their requests, by `METHOD path-regex`."""

    def __init__(self) -> None:
        self._queues: dict[str, deque[Fault]] = defaultdict(deque)

    def inject(self, method: str, path_pattern: str, *faults: Fault) -> None:
        """Queue `faults` for requests whose `METHOD path` fully matches the regex given."""
        self._queues[f"{method.upper()} {path_pattern}"].extend(faults)

    def take(self, method: str, path: str) -> Fault | None:
        """The next fault queued for a request `method path` (no query), if any."""
        for key, queue in self._queues.items():
            verb, pattern = key.split(" ", 1)
            if queue and verb == method.upper() and re.fullmatch(pattern, path):
                return queue.popleft()
        return None

    def pending(self) -> int:
        """How many faults no request has taken yet."""
        return sum(len(queue) for queue in self._queues.values())
