"""A cancelled job ends with a report, not a kill: SIGTERM/SIGINT cancel the running task.

GitHub cancels a job by signalling its processes. The first signal cancels the task that
runs the command, so the run still restores the checkout, finishes the progress comment
and writes the summary; a second signal ends the process at once.
"""

from __future__ import annotations

import asyncio
import os
import signal

__all__ = ["SignalCancellation"]


class SignalCancellation:
    """Installed in the task to cancel; tells a cancellation of ours from any other."""

    def __init__(self) -> None:
        self.signal_name: str | None = None
        """The signal (SIGTERM, SIGINT) that cancelled the run, e.g. a cancelled workflow."""
        self.stopped_the_run = False
        """Whether that signal's cancellation reached the run (one that came after the run
        had ended cancelled nothing)."""

    def install(self) -> None:
        """Cancel the current task on SIGTERM/SIGINT; no-op where signals cannot be caught."""
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()

        def stop(signum: int) -> None:
            if self.signal_name is not None or task is None:
                os._exit(128 + signum)
            self.signal_name = signal.Signals(signum).name
            task.cancel()

        for signum in (signal.SIGTERM, signal.SIGINT):
            try:
                loop.add_signal_handler(signum, stop, signum)
            except (NotImplementedError, RuntimeError, ValueError):
                return  # not the main thread, or no signals here: run without the handler

    def reason(self) -> str | None:
        """Why the run stopped when our handler cancelled it (the task may go on to report),
        else None: the cancellation came from elsewhere and must propagate."""
        task = asyncio.current_task()
        if self.signal_name is None or task is None:
            return None
        self.stopped_the_run = True
        task.uncancel()
        return f"the run was stopped by {self.signal_name} (the job was cancelled)"
