"""A committed recording, replayed as a regression test (made by
`python -m scripts.make_replay_fixture`; run it again after changing what the agents send)."""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from amelia.replay.player import replay
from amelia.testing.replay import assert_replays
from tests.git_helpers import git
from tests.image_user import ImageUser

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

RECORDING = Path(__file__).parents[2] / "fixtures" / "recordings" / "implement-farewell"


def _busy_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The replaying process as a maintainer's shell or git hook has it: a git config of
    one's own, another repository's `GIT_DIR` and index (as a pre-commit hook gets them),
    Claude Code settings, and another temporary directory. Returns that other repository."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(
        "[log]\n\tdecorate = full\n[color]\n\tui = always\n", encoding="utf-8"
    )
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", "-b", "main", str(other))
    odd_tmp = tmp_path / "another tmp ü"
    odd_tmp.mkdir()
    for name, value in {
        "HOME": str(home),
        "GIT_DIR": str(other / ".git"),
        "GIT_WORK_TREE": str(other),
        "GIT_INDEX_FILE": str(other / ".git" / "index.lock"),
        "ANTHROPIC_MODEL": "claude-some-other",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS": "4096",
        "DISABLE_PROMPT_CACHING": "1",
        "TMPDIR": str(odd_tmp),
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(tempfile, "tempdir", str(odd_tmp))  # as TMPDIR makes it at start
    return other


def test_the_recorded_implement_run_still_ends_the_same_whatever_the_shell_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The agents run as the recorded run's did (amelia's own user).
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    other = _busy_shell(tmp_path, monkeypatch)

    result = assert_replays(RECORDING, tmp_path)

    assert result.exit_code == 0
    (review,) = result.review_bodies
    assert "farewell mirrors greet" in review
    assert [c.branch for c in result.commits] == ["amelia/issue-1"]
    assert result.plan is not None and "Farewell Implementation Plan" in result.plan
    # Nothing of the replay went into the hook's repository.
    monkeypatch.delenv("GIT_DIR")
    monkeypatch.delenv("GIT_WORK_TREE")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert not (other / ".git" / "index.lock").exists()
    assert git(other, "for-each-ref") == ""
    assert git(other, "count-objects").startswith("0 objects")


def test_a_recording_that_no_longer_replays_fails_with_the_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    from amelia.agents import developer, prompts

    changed = prompts.DEVELOPER_INSTRUCTIONS + "\nBe brief."
    monkeypatch.setattr(developer, "DEVELOPER_INSTRUCTIONS", changed)
    with pytest.raises(AssertionError) as caught:
        assert_replays(RECORDING, tmp_path)
    assert "diverges at model request 1: developer, turn 1" in str(caught.value)
    assert "+system[2].text: Be brief." in str(caught.value)


def test_the_replaying_process_chooses_the_agent_user_over_the_recording(
    image_user: ImageUser, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    # Recorded with AMELIA_AGENT_USER=none; replayed as root where the image's user is asked for.
    monkeypatch.setenv("AMELIA_AGENT_USER", image_user.name)
    base = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
    base.chmod(0o755)
    try:
        replay(RECORDING, repo=base / "replay", stream=io.StringIO())
    finally:
        shutil.rmtree(base, ignore_errors=True)
    # Its agents' view differs (another HOME, git's context), so only who ran them is asserted.
    assert f"agents run as user {image_user.name}, uid {image_user.uid}" in capfd.readouterr().err


def _signalled_at_first_write(
    command: list[str], writes: Path, signum: signal.Signals
) -> tuple[int, str, str]:
    """Run `command` (a replay into the directory holding `writes`), send it `signum` once
    the first write the run would make (its progress comment) is saved under `writes`: the
    engine is running then, with the agents still to come. Exit code, stdout, stderr."""
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        deadline = time.monotonic() + 120
        while not any(writes.glob("*")) and process.poll() is None:
            assert time.monotonic() < deadline, "the replay made no write"
            time.sleep(0.01)
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=120)
    return process.returncode, stdout, stderr


def test_ctrl_c_stops_a_replay_with_130_and_compares_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    target = tmp_path / "replay"
    command = [sys.executable, "-m", "amelia.cli", "replay", str(RECORDING), "--repo", str(target)]

    code, stdout, stderr = _signalled_at_first_write(command, target / "writes", signal.SIGINT)

    assert code == 130, stderr
    assert "stopped by SIGINT before it ended: nothing was compared" in stdout
    assert "differs:" not in stdout and "the same outcome" not in stdout
    assert "Traceback" not in stderr
    assert f"the replay's checkout, origin and writes are in {target}" in stdout


def test_ctrl_c_during_a_replayed_test_stops_the_test_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    # In a process of its own: a SIGINT in the test's own process could also reach it
    # after asyncio put KeyboardInterrupt back, and stop the rest of this session.
    program = (
        "import sys; from pathlib import Path\n"
        "from amelia.testing.replay import assert_replays\n"
        "try:\n"
        "    assert_replays(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt'); sys.exit(3)\n"
        "print('went on after Ctrl-C')\n"
    )
    command = [sys.executable, "-c", program, str(RECORDING), str(tmp_path)]

    code, stdout, stderr = _signalled_at_first_write(
        command, tmp_path / "replay" / "writes", signal.SIGINT
    )

    assert code == 3, stderr
    assert stdout.strip().splitlines()[-1] == "KeyboardInterrupt"
    assert "AssertionError" not in stderr


def test_sigterm_during_a_replayed_test_ends_the_process_as_it_would_any_test(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    # The test process of a maintainer's suite, cancelled by its CI while the replay runs.
    program = (
        "import sys; from pathlib import Path\n"
        "from amelia.testing.replay import assert_replays\n"
        "assert_replays(Path(sys.argv[1]), Path(sys.argv[2]))\n"
        "print('went on after SIGTERM')\n"
    )
    command = [sys.executable, "-c", program, str(RECORDING), str(tmp_path)]

    code, stdout, stderr = _signalled_at_first_write(
        command, tmp_path / "replay" / "writes", signal.SIGTERM
    )

    assert code == -signal.SIGTERM, stderr
    assert "went on after SIGTERM" not in stdout and "AssertionError" not in stderr
