"""Which signal stopped a run: only one whose cancellation reached the run counts."""

from __future__ import annotations

import asyncio
import os
import signal

from amelia.action.engine._signals import SignalCancellation


def test_a_signal_during_the_run_stops_it_and_gives_the_reason() -> None:
    signals = SignalCancellation()
    reasons: list[str | None] = []

    async def run() -> None:
        signals.install()
        try:
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            reasons.append(signals.reason())

    asyncio.run(run())

    assert reasons == ["the run was stopped by SIGTERM (the job was cancelled)"]
    assert signals.signal_name == "SIGTERM" and signals.stopped_the_run


def test_a_signal_that_comes_as_the_run_ends_stopped_nothing() -> None:
    signals = SignalCancellation()

    async def run() -> None:
        signals.install()
        # Handled on the loop's next turn, as asyncio.run winds down: this task has ended.
        # (SIGTERM: asyncio puts SIGINT's handler back as KeyboardInterrupt, which a late
        # delivery would raise into whatever the test process runs next.)
        os.kill(os.getpid(), signal.SIGTERM)

    asyncio.run(run())

    assert signals.signal_name == "SIGTERM"
    assert not signals.stopped_the_run
