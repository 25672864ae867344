"""`amelia replay` refuses what it cannot replay before it runs anything: one clear error,
exit 2, and nothing of its own left where it was pointed (the committed recording,
copied and damaged; no agent runs)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from amelia.replay.format import RecordingError
from amelia.replay.player import replay

RECORDING = Path(__file__).parents[2] / "fixtures" / "recordings" / "implement-farewell"


def _copy(tmp_path: Path, **manifest: Any) -> Path:
    """The committed recording in `tmp_path`, its manifest's fields changed as given."""
    copy = tmp_path / "recording"
    shutil.copytree(RECORDING, copy)
    path = copy / "recording.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    for name, value in manifest.items():
        if isinstance(value, dict) and isinstance(data.get(name), dict):
            data[name].update(value)
        else:
            data[name] = value
    path.write_text(json.dumps(data), encoding="utf-8")
    return copy


def test_a_repo_that_is_a_file_is_one_line_and_exit_2(tmp_path: Path) -> None:
    target = tmp_path / "a-file"
    target.write_text("x", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", str(RECORDING), "--repo", str(target)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: --repo {target} is not a directory\n"
    assert done.stdout == ""


@pytest.mark.parametrize(
    ("arguments", "named"),
    [(["", "--repo", "x"], "the recording"), ([str(RECORDING), "--repo", " "], "--repo")],
)
def test_an_empty_argument_is_refused_not_taken_as_the_current_directory(
    tmp_path: Path, arguments: list[str], named: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", *arguments],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"error: {named} is empty: name a directory\n"
    assert list(tmp_path.iterdir()) == []


def test_a_repo_that_cannot_be_made_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    with pytest.raises(RecordingError, match="cannot be used: Not a directory"):
        replay(RECORDING, repo=tmp_path / "a-file" / "replay")


@pytest.mark.parametrize("existing", [True, False], ids=["empty-repo", "new-repo"])
def test_a_checkout_that_cannot_be_rebuilt_leaves_nothing_behind(
    tmp_path: Path, existing: bool
) -> None:
    recording = _copy(tmp_path, checkout={"head": "0" * 40})
    target = tmp_path / "replay"
    if existing:
        target.mkdir()
    with pytest.raises(RecordingError, match="the recorded checkout cannot be rebuilt"):
        replay(recording, repo=target)
    assert (list(target.iterdir()) == []) if existing else not target.exists()


def test_a_truncated_pack_leaves_nothing_behind(tmp_path: Path) -> None:
    recording = _copy(tmp_path)
    pack = recording / "checkout.pack"
    pack.write_bytes(pack.read_bytes()[:300])
    with pytest.raises(RecordingError, match="the recorded checkout cannot be rebuilt"):
        replay(recording, repo=tmp_path / "replay")
    assert not (tmp_path / "replay").exists()


@pytest.mark.parametrize("existing", [False, True])
def test_ctrl_c_while_the_checkout_is_rebuilt_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, existing: bool
) -> None:
    from amelia.replay.checkout import rebuild

    def pressed_midway(*arguments: Any, **options: Any) -> Any:
        rebuild(*arguments, **options)  # the checkout and origin are on disk by now
        raise KeyboardInterrupt

    monkeypatch.setattr("amelia.replay.player.rebuild", pressed_midway)
    target = tmp_path / "replay"
    if existing:
        target.mkdir()
    with pytest.raises(KeyboardInterrupt):
        replay(RECORDING, repo=target)
    assert (list(target.iterdir()) == []) if existing else not target.exists()


def test_a_bad_start_time_is_refused_before_any_file_is_made(tmp_path: Path) -> None:
    recording = _copy(tmp_path, created_at="yesterday")
    with pytest.raises(RecordingError, match="created_at: not a date and time"):
        replay(recording, repo=tmp_path / "replay")
    assert not (tmp_path / "replay").exists()
