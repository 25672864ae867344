"""Nothing a run did is lost: the plan reaches origin before any comment links it, and a run
killed mid-way leaves its partial transcript behind."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from amelia.testing.action_harness import ActionHarness
from amelia.testing.anthropic_script import RecordedRequest, Turn, stall, text
from tests.faults.conftest import EngineBench

PUSH_PROBE = "/_test/pushed/"


def _report_pushes_to(origin: Path, api_url: str) -> None:
    """A post-receive hook on origin that tells the fake GitHub about every push, so the
    server's request log orders pushes and comment writes on one timeline."""
    hook = origin / "hooks" / "post-receive"
    hook.write_text(
        f"#!{sys.executable}\n"
        "import sys, urllib.error, urllib.request\n"
        "for line in sys.stdin:\n"
        "    old, new, ref = line.split()\n"
        "    try:\n"
        f"        urllib.request.urlopen('{api_url}{PUSH_PROBE}' + new, timeout=10).read()\n"
        "    except urllib.error.HTTPError:\n"
        "        pass\n",
        encoding="utf-8",
    )
    hook.chmod(hook.stat().st_mode | stat.S_IXUSR)


def _cli_scratch_of(group: int, tmpdir: Path) -> list[Path]:
    """The scratch directories of the Claude Code CLIs running in process group `group`
    (each holds the pid its launcher wrote), an amelia with `tmpdir` as its TMPDIR made:
    what a SIGKILLed amelia cannot remove. They are in `tmpdir`, or in /tmp when `tmpdir`
    is too long for the CLI's sockets (`amelia.drivers.cli._claude_tmp`)."""
    found = []
    pid_files = [*tmpdir.glob("amelia-cli-*/cli.pid"), *Path("/tmp").glob("amelia-cli-*/cli.pid")]
    for pid_file in pid_files:
        with contextlib.suppress(OSError, ValueError):
            if os.getpgid(int(pid_file.read_text())) == group:
                found.append(pid_file.parent)
    return found


@pytest.mark.timeout(120)
def test_the_plan_is_on_origin_before_the_comment_that_links_it(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    _report_pushes_to(bench.harness.origin, bench.github.url)

    run = bench.run_plan()

    assert run.exit_code == 0, run.stdout
    paths = [f"{r.method} {r.path}" for r in run.github_requests]
    pushed = [i for i, p in enumerate(paths) if PUSH_PROBE in p]
    assert len(pushed) == 1, paths
    sha = paths[pushed[0]].rsplit("/", 1)[1]
    linking = [
        i
        for i, r in enumerate(run.github_requests)
        if isinstance(r.body, dict) and f"/blob/{sha}/" in str(r.body.get("body", ""))
    ]
    assert linking, "no comment links the pushed plan"
    assert pushed[0] < min(linking)
    # And nothing posted before the push names any commit at all.
    for request in run.github_requests[: pushed[0]]:
        body = str(request.body.get("body", "")) if isinstance(request.body, dict) else ""
        assert not re.search(r"/blob/[0-9a-f]{40}/", body)


def _stalled_architect(request: RecordedRequest) -> Turn:
    """The model goes silent on the architect, so the run is killed while it waits."""
    return stall(120, [text("still thinking")])


@pytest.mark.e2e
@pytest.mark.timeout(180)
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_run_killed_mid_way_keeps_its_partial_transcript(
    tmp_path: Path, how: signal.Signals
) -> None:
    with ActionHarness(tmp_path / "action", script=_stalled_architect) as harness:
        number = harness.add_issue("Add a farewell", "Say goodbye too.")
        run_dir = tmp_path / "killed"
        run_dir.mkdir()
        event = run_dir / "event.json"
        event.write_text(json.dumps(harness.comment_event(number, "/amelia plan")))
        outputs, summary = run_dir / "github_output", run_dir / "step_summary"
        env = harness.environment("issue_comment", event, outputs, summary)
        # What SIGKILL leaves of amelia's temporary directories stays in the test's own.
        env["TMPDIR"] = str(run_dir)
        runs = harness.runner_temp / "amelia" / "runs"
        scratch: list[Path] = []
        process = subprocess.Popen(
            [sys.executable, "-m", "amelia.cli", "action"],
            cwd=run_dir,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            deadline = time.monotonic() + 90
            while not harness.model.main_requests and time.monotonic() < deadline:
                assert process.poll() is None, "amelia ended before the model was asked"
                time.sleep(0.2)
            assert harness.model.main_requests, "the architect never reached the model"
            scratch = _cli_scratch_of(process.pid, run_dir)
            os.kill(process.pid, how)
            process.wait(timeout=60)
        finally:
            # Our own process group only: the amelia process and the CLI it started.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=30)
            for directory in scratch:
                shutil.rmtree(directory, ignore_errors=True)

        (transcript,) = sorted(runs.glob("*.jsonl"))
        lines = [json.loads(line) for line in transcript.read_text().splitlines() if line]
        assert lines[0]["kind"] == "request"
        assert "Add a farewell" in json.dumps(lines[0]["message"])
        assert harness.origin_branches() == ["main"]
        if how == signal.SIGKILL:
            assert process.returncode == -signal.SIGKILL
            return
        # A cancelled job (SIGTERM) still ends the run clearly and says so everywhere.
        assert process.returncode == 1
        assert lines[-1]["kind"] == "driver_stopped"
        assert "stopped by SIGTERM" in summary.read_text(encoding="utf-8")
        (progress,) = harness.github.comments(harness.repo, number)
        assert "**Failed**" in progress and "stopped by SIGTERM" in progress
