"""Recordings as regression tests: replay one in a test and fail with the report when the
run no longer ends as recorded.

    def test_the_farewell_run_still_ends_the_same(tmp_path: Path) -> None:
        result = assert_replays(Path(__file__).parent / "recordings" / "farewell", tmp_path)
        assert "farewell" in result.review_bodies[0]
"""

from __future__ import annotations

import io
import signal
from pathlib import Path

from amelia import __version__
from amelia.redaction import Redactor
from amelia.replay.format import FORMAT_VERSION, Manifest
from amelia.replay.player import ReplayResult, replay
from amelia.replay.recorder import Cleaner, Recorder

__all__ = ["assert_replays", "start_recorder"]


def start_recorder(
    directory: Path,
    *,
    secrets: list[str],
    redactor: Redactor | None = None,
    repository: str = "octo/app",
) -> Recorder:
    """A recording of a `workflow_dispatch` run of `repository` in the new `directory`,
    cleaned of `secrets` as a run cleans its own (by `redactor` when given), for tests and
    benchmarks that hand it model exchanges or GitHub calls."""
    manifest = Manifest(
        version=FORMAT_VERSION,
        id=directory.name,
        created_at="2026-01-01T00:00:00+00:00",
        amelia_version=__version__,
        event_name="workflow_dispatch",
        event={},
        repository=repository,
    )
    directory.mkdir(parents=True)
    cleaner = Cleaner(redactor or Redactor(secrets=secrets), secrets)
    return Recorder(directory, manifest, cleaner=cleaner)


def assert_replays(recording: Path, workdir: Path) -> ReplayResult:
    """Replay `recording` in `workdir/replay` (offline) and return the result; raise
    `AssertionError` with the replay's report (where it diverged, what differs) when it
    does not end with the recorded commit trees, plan file and review bodies. Ctrl-C during
    the replay stops the test session (`KeyboardInterrupt`), and SIGTERM ends the process,
    as in any other test."""
    shown = io.StringIO()
    result = replay(recording, repo=workdir / "replay", stream=shown)
    if result.stopped_by == "SIGINT":
        raise KeyboardInterrupt
    if result.stopped_by is not None:  # SIGTERM: end the process as it would have
        stopped_by = signal.Signals[result.stopped_by]
        signal.signal(stopped_by, signal.SIG_DFL)
        signal.raise_signal(stopped_by)
    if not result.same:
        raise AssertionError(f"{result.report()}\n\nWhat the replay printed:\n{shown.getvalue()}")
    return result
