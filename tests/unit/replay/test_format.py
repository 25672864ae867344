"""Recordings are versioned: another version, or no recording, is one clear line, exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amelia.replay.format import FORMAT_VERSION, RecordingError, load_recording


def _manifest(directory: Path, **fields: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {
        "version": FORMAT_VERSION,
        "id": "20260101T000000Z-abcdef12",
        "created_at": "2026-01-01T00:00:00+00:00",
        "amelia_version": "0.0.0",
        "event_name": "issue_comment",
        "event": {},
        "repository": "octo/app",
        **fields,
    }
    (directory / "recording.json").write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def test_a_recording_of_this_version_is_read(tmp_path: Path) -> None:
    recording = load_recording(_manifest(tmp_path / "r"))
    assert recording.manifest.version == FORMAT_VERSION
    assert recording.exchanges == [] and recording.calls == []


@pytest.mark.parametrize("version", [0, FORMAT_VERSION + 1, "1", None])
def test_another_version_is_refused_naming_both(tmp_path: Path, version: object) -> None:
    directory = _manifest(tmp_path / "r", version=version)
    with pytest.raises(RecordingError) as caught:
        load_recording(directory)
    assert f"this amelia reads version {FORMAT_VERSION} only" in caught.value.message


def test_amelia_replay_of_an_old_recording_exits_2_in_one_line(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r", version=0)
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert "format version 0" in done.stderr and "Traceback" not in done.stderr


def test_a_directory_without_a_recording_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "is not a recording" in done.stderr


def test_a_broken_exchange_line_is_named(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r")
    (directory / "model.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=r"model\.jsonl line 1 is not JSON"):
        load_recording(directory)
