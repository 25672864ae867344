"""Loaded at start-up by the `amelia action` processes the start-up benchmark runs (this
directory comes first on their PYTHONPATH): when the process first opens a connection, its
first GitHub request, it writes the CPU time it has used so far to the file named by
AMELIA_BENCHMARK_CPU_FILE. A busy machine stretches wall time far more than CPU time."""

from __future__ import annotations

import os
import socket
import time
from typing import Any

_FILE = os.environ.get("AMELIA_BENCHMARK_CPU_FILE")
_connect = socket.socket.connect


def _first_connect(self: Any, address: Any) -> None:
    socket.socket.connect = _connect  # type: ignore[method-assign]
    cpu = time.process_time()
    if _FILE:
        with open(_FILE, "w", encoding="utf-8") as stamp:
            stamp.write(f"{cpu}\n")
    _connect(self, address)


if _FILE:
    socket.socket.connect = _first_connect  # type: ignore[method-assign]
