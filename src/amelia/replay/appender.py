"""Lines appended to a recording's files on a thread of their own, in the order handed over.

    appender = Appender(directory)
    appender.append("model.jsonl", lambda: line_of(exchange), hold=True)  # returns at once
    appender.append("github.jsonl", lambda: line_of(call))  # made now, held ones first
    appender.close()                                         # every line written

Whoever hands over a line (the credential proxy's event loop, a GitHub call) only queues
the function that makes it: cleaning a model request of secrets, the largest part of
recording, happens on the appender's thread. A line handed over with `hold` waits until a
line without it comes, or `close`: the model exchanges of an agent's session are made
when the run next speaks to GitHub (each stage's progress, between sessions) or ends, not
between the session's own requests, where the thread would take the interpreter's lock
from the event loop while it serves the next one (measured on a 300-call session: 3-7 %
of its time, against the same work done after the session). Each file stays open while
the appender runs and is flushed after every line, so a run that is killed keeps what was
written (all but what its last stage held). A line that cannot be made or written is a
warning, never the run's failure; the lines after it are still written. `close` waits for
every line handed over (so does the interpreter's exit, when `close` was never called);
the appender starts again when a line comes after it.
"""

from __future__ import annotations

import atexit
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

from loguru import logger

__all__ = ["Appender"]

_Line = tuple[str, Callable[[], str]]


class Appender:
    """Appends lines to files of `directory` on one thread, in order."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._lock = threading.Lock()
        self._closing = threading.Lock()
        self._queue: queue.SimpleQueue[_Line | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._held: list[_Line] = []
        self._cpu = 0.0
        self.written: dict[str, int] = {}
        """How many lines each file got (complete once `close` returns)."""

    @property
    def cpu_time(self) -> float:
        """The CPU seconds the appender's thread has spent so far, counted when it stops."""
        return self._cpu

    def append(self, name: str, line: Callable[[], str], *, hold: bool = False) -> None:
        """Append what `line()` returns, and a newline, to the file `name` (made later,
        on the appender's thread); with `hold`, only once a line without it comes or the
        appender closes."""
        with self._lock:
            if self._thread is None:
                # A queue of its own: a thread still finishing the lines before a `close`
                # must not take the lines that came after it.
                self._queue = queue.SimpleQueue()
                self._thread = threading.Thread(
                    target=self._run, args=(self._queue,), name="amelia-recording", daemon=True
                )
                self._thread.start()
                atexit.register(self.close)
            if hold:
                self._held.append((name, line))
                return
            self._release_held()
            self._queue.put((name, line))

    def _release_held(self) -> None:
        """Queue the held lines, in order (the lock held)."""
        for item in self._held:
            self._queue.put(item)
        self._held.clear()

    def close(self) -> None:
        """Write every line handed over, close the files and stop the thread."""
        with self._closing:  # a second caller returns once the lines are written too
            with self._lock:
                thread, self._thread = self._thread, None
                if thread is None:
                    return
                atexit.unregister(self.close)
                self._release_held()
                self._queue.put(None)
            thread.join()

    def _run(self, lines: queue.SimpleQueue[_Line | None]) -> None:
        files: dict[str, IO[str]] = {}
        try:
            while (item := lines.get()) is not None:
                name, line = item
                try:
                    handle = files.get(name)
                    if handle is None:
                        handle = files[name] = (self.directory / name).open("a", encoding="utf-8")
                    handle.write(line() + "\n")
                    handle.flush()
                    self.written[name] = self.written.get(name, 0) + 1
                except Exception as error:  # a recording's failure must not fail the run
                    logger.warning("amelia: the recording misses a line of {}: {}", name, error)
        finally:
            for name, handle in files.items():
                try:
                    handle.close()
                except OSError as error:
                    logger.warning("amelia: the recording's {} was not closed: {}", name, error)
            self._cpu += time.thread_time()
