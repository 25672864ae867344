"""No test leaves loguru writing to a stream that is closed once the test is over: a later
test's log records would each print an "I/O operation on closed file" traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
LOGS_LATER = "tests/unit/isolation/test_agent_user.py::test_who_agents_run_as"
"""Logs two warnings, through whatever handler the earlier test left."""
PYTEST = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist"]


@pytest.mark.parametrize(
    "earlier",
    [
        # `amelia plan` through typer's CliRunner: the local commands point loguru at the
        # runner's stderr, closed after the invocation.
        "tests/unit/commands/test_local_commands.py::test_bad_input_is_one_error_line_and_exit_2[args0]",
        # The Action's engine in the test's process: its sink is capsys's stream.
        "tests/faults/test_mode_github_faults.py::test_implement_survives_a_transient_fault[create_pull-502]",
    ],
    ids=["cli-runner", "capsys"],
)
def test_a_later_test_logs_without_a_closed_stream_error(earlier: str) -> None:
    ran = subprocess.run(
        [*PYTEST, earlier, LOGS_LATER],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-3000:]
    assert "2 passed" in output
    assert "I/O operation on closed file" not in output
    assert "Logging error in Loguru Handler" not in output
