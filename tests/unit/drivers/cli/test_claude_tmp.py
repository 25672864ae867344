"""Where the Claude Code CLI's private temporary directory goes, and how it is handed over."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from amelia.drivers.cli._claude_tmp import SOCKET_DIRECTORY_LIMIT, cli_scratch, private_tmpdir
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment


@pytest.mark.parametrize("uid", [0, 10001, 4294967294])
def test_the_scratch_is_short_enough_even_under_a_long_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uid: int
) -> None:
    long = tmp_path / ("long-" * 12)
    long.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(long))
    with cli_scratch(uid) as scratch:
        tmpdir = private_tmpdir(Path(scratch), owner=None)
        assert Path(scratch).parent == Path("/tmp")
        assert len(os.fsencode(tmpdir / f"claude-{uid}")) <= SOCKET_DIRECTORY_LIMIT
    assert not Path(scratch).exists()


def test_the_scratch_stays_in_a_short_tmpdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    short = Path(tempfile.mkdtemp(prefix="", dir="/tmp"))  # /tmp/<8 characters>
    try:
        monkeypatch.setattr(tempfile, "tempdir", str(short))
        with cli_scratch(0) as scratch:
            assert Path(scratch).parent == short
    finally:
        short.rmdir()


def test_the_private_directory_is_the_cli_users_alone(tmp_path: Path) -> None:
    tmpdir = private_tmpdir(tmp_path, owner=None)
    status = tmpdir.stat()
    assert (status.st_uid, stat.S_IMODE(status.st_mode)) == (os.geteuid(), 0o700)


def test_the_cli_gets_it_as_its_only_temporary_directory(tmp_path: Path) -> None:
    driver = ClaudeCliDriver(
        env={"TMPDIR": "/elsewhere", "CLAUDE_CODE_TMPDIR": "/elsewhere"},
        environment=DriverEnvironment(inherited={"TMPDIR": "/shared", "PATH": "/usr/bin"}),
    )
    env = driver.cli_environment(tmpdir=tmp_path)
    assert env["CLAUDE_CODE_TMPDIR"] == env["TMPDIR"] == str(tmp_path)
