"""`scripts/rehearse-image` as CI calls it: its last line and exit code."""

from __future__ import annotations

import subprocess
from pathlib import Path

from scripts.image_rehearsal.mounts import mount_points_under

from tests.integration.container.conftest import REPO, requires_rehearsal

pytestmark = requires_rehearsal


def _mounts_left_by_finished_runs(cache: Path) -> list[Path]:
    """Mounts under work directories whose rehearsal process has ended (others may run)."""
    work = cache / "work"
    left = []
    for mount_point in mount_points_under(work):
        owner = mount_point.relative_to(work).parts[0].split("-")[1]
        if not Path(f"/proc/{owner}").exists():
            left.append(mount_point)
    return left


def _rehearse_image(
    tmp_path: Path, dockerfile: str, *options: str
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "Dockerfile").write_text(dockerfile)
    (tmp_path / "hello.txt").write_text("hello from the context\n")
    return subprocess.run(
        [
            str(REPO / "scripts/rehearse-image"),
            "--dockerfile",
            str(tmp_path / "Dockerfile"),
            "--context",
            str(tmp_path),
            "--no-layer-cache",
            *options,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_success_ends_with_the_ok_line_and_the_size(rehearsal_cache: Path, tmp_path: Path) -> None:
    result = _rehearse_image(
        tmp_path,
        'FROM debian:bookworm-slim\nCOPY hello.txt /\nENTRYPOINT ["cat", "/hello.txt"]\n',
        "--run-entrypoint",
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "hello from the context" in lines
    assert "entrypoint exit code: 0" in lines
    assert lines[-1].startswith("image rehearsal: ok (") and lines[-1].endswith(" MB)")
    assert _mounts_left_by_finished_runs(rehearsal_cache) == []


def test_failure_exits_1_naming_the_instruction(rehearsal_cache: Path, tmp_path: Path) -> None:
    result = _rehearse_image(
        tmp_path, 'FROM debian:bookworm-slim\nCOPY nothing.txt /\nENTRYPOINT ["true"]\n'
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        "image rehearsal: FAILED: COPY source 'nothing.txt' is not in the build context "
        "(missing or excluded by .dockerignore) at line 2: COPY nothing.txt /"
    )
    assert _mounts_left_by_finished_runs(rehearsal_cache) == []


def test_a_failing_entrypoint_fails_the_rehearsal(rehearsal_cache: Path, tmp_path: Path) -> None:
    result = _rehearse_image(
        tmp_path, 'FROM debian:bookworm-slim\nENTRYPOINT ["false"]\n', "--run-entrypoint"
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == "image rehearsal: FAILED: entrypoint exited 1"
