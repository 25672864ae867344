"""What the Action's engine calls to record a run: start, hand over, finish, tell.

`start_recording` returns None when the `record` input is off, or when the recording
cannot even be started (a warning says why): recording never fails a run.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from amelia.replay.recorder import Recorder

if TYPE_CHECKING:
    from amelia.action.workflow_io import WorkflowIO
    from amelia.config import Settings
    from amelia.git import Git
    from amelia.redaction import Redactor

__all__ = ["finish_recording", "start_recording"]


def start_recording(
    settings: Settings,
    *,
    event_name: str,
    event_path: Path | None,
    repo: str,
    dry_run: bool,
    redactor: Redactor,
    started: datetime,
) -> Recorder | None:
    """A recorder for this run, or None (recording off, or impossible here); `started` is
    the run's clock start, which its replay runs with."""
    if not settings.inputs.record:
        return None
    try:
        return Recorder.start(
            settings,
            event_name=event_name,
            event_path=event_path,
            repo=repo,
            dry_run=dry_run,
            redactor=redactor,
            started=started,
        )
    except OSError as error:
        logger.warning("amelia: the run is not recorded: {}", error)
        return None


def finish_recording(
    recorder: Recorder,
    io: WorkflowIO,
    git: Git | None,
    *,
    exit_code: int,
    conclusion: str | None,
    outputs: Mapping[str, str],
    on_runner: bool,
    workflow_run: str | None = None,
    later_path: str | None = None,
) -> None:
    """Complete the recording, name it in the step outputs and the job summary (with the
    artifact the example workflows upload it as, in the workflow run `workflow_run`). On a
    runner the summary names the directory as a later step of the job does (`later_path`,
    e.g. `${{ runner.temp }}/_github_home/…` from amelia's container, `${{ runner.temp }}/…`
    in the host flavour), else as it is."""
    try:
        recorder.finish(git, exit_code=exit_code, conclusion=conclusion, outputs=outputs)
    except OSError as error:
        io.warning(f"amelia: the recording could not be completed: {error}")
        return
    run_id = recorder.manifest.id
    io.set_outputs({"recording": run_id})
    kib = max(1, recorder.size() // 1024)
    run_number = workflow_run or "<run id>"
    where = f"`{recorder.directory}`"
    if on_runner and later_path is not None:
        where = f"`{later_path.rstrip('/')}/`"
    io.write_summary(
        "\n".join(
            [
                "",
                f"**Recording** `{run_id}` ({kib} KiB, secrets masked) in {where}. "
                "Upload it with `actions/upload-artifact` (see amelia's example workflows), "
                "fetch it with "
                f"`gh run download {run_number} --name amelia-recording-{run_id} --dir {run_id}` "
                "(with one `--name`, gh puts the files themselves in `--dir`) and re-run it "
                f"offline with `amelia replay {run_id} --repo <empty directory>`.",
            ]
        )
    )
