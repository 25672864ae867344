"""The example workflows upload each run's recording under a name of its own: the legs of a
matrix job and the attempts of a re-run never collide, and the name is the one the job
summary tells a maintainer to fetch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from amelia.replay.format import Manifest
from amelia.replay.recorder import Recorder
from amelia.replay.session import finish_recording

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
RECORDING_NAME = "amelia-recording-${{ steps.amelia.outputs.recording }}"


def _uploads(job: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        step
        for step in job.get("steps", [])
        if str(step.get("uses", "")).startswith("actions/upload-artifact@")
    ]


def _recording_uploads() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    found = []
    for path in sorted(EXAMPLES.glob("*.yml")):
        workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
        for name, job in workflow["jobs"].items():
            for step in _uploads(job):
                if "amelia/runs/" in str(step["with"]["path"]):
                    found.append((f"{path.name}:{name}", job, step))
    return found


def test_every_example_that_runs_agents_uploads_the_recording_by_its_id() -> None:
    uploads = _recording_uploads()
    assert {where.split(":")[0] for where, _, _ in uploads} == {
        "amelia-plan.yml",
        "amelia-review.yml",
        "amelia-review-forks.yml",
        "amelia-scan.yml",
    }
    for where, _, step in uploads:
        assert step["with"]["name"] == RECORDING_NAME, where


@pytest.mark.parametrize("where", [w for w, job, _ in _recording_uploads() if "strategy" in job])
def test_no_two_legs_of_a_matrix_job_upload_under_one_name(where: str) -> None:
    job, step = next((j, s) for w, j, s in _recording_uploads() if w == where)
    assert job["strategy"]["matrix"]
    name = step["with"]["name"]
    # Only expressions that differ from leg to leg: nothing `github.*` gives alone.
    assert "steps.amelia.outputs.recording" in name or "matrix." in name, name


def test_the_job_summary_names_the_artifact_the_examples_upload(tmp_path: Path) -> None:
    from amelia.action.workflow_io import WorkflowIO
    from amelia.redaction import Redactor
    from amelia.replay.recorder import Cleaner

    manifest = Manifest(
        version=1,
        id="20260101T120000Z-1a2b3c4d",
        created_at="2026-01-01T12:00:00+00:00",
        amelia_version="0",
        event_name="issue_comment",
        event={},
        repository="octo/app",
    )
    recorder = Recorder(tmp_path, manifest, cleaner=Cleaner(Redactor(), []))
    summary = tmp_path / "summary.md"
    output = tmp_path / "output"
    io = WorkflowIO(output_path=str(output), summary_path=str(summary))

    finish_recording(
        recorder,
        io,
        None,
        exit_code=0,
        conclusion="success",
        outputs={},
        on_runner=True,
        workflow_run="4242",
    )

    artifact = RECORDING_NAME.replace("${{ steps.amelia.outputs.recording }}", manifest.id)
    fetch = f"`gh run download 4242 --name {artifact} --dir {manifest.id}`"
    assert fetch in summary.read_text(encoding="utf-8")
    assert f"recording={manifest.id}" in output.read_text(encoding="utf-8")
