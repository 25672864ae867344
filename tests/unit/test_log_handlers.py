"""No test leaves loguru writing to a stream that is closed once the test is over: a later
test's log records would each print an "I/O operation on closed file" traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CASES = (
    # `amelia plan` through typer's CliRunner: the local commands point loguru at the
    # runner's stderr, closed after the invocation. The next test logs two warnings,
    # through whatever handler this one left.
    "tests/unit/commands/test_local_commands.py::test_bad_input_is_one_error_line_and_exit_2[args0]",
    "tests/unit/isolation/test_agent_user.py::test_who_agents_run_as",
    # The Action's engine in the test's process: its sink is capsys's stream. The next test
    # logs a warning, through its own sink and whatever handler this one left.
    "tests/faults/test_mode_github_faults.py::test_implement_survives_a_transient_fault[create_pull-502]",
    "tests/unit/replay/test_recorder.py::test_a_failing_entry_is_a_warning_and_the_next_ones_are_written",
)
"""Each test that points loguru at a stream closed when it ends, then one that logs: one
pytest process for both cases (one costs ~3.5 s of CPU), which runs them in this order."""
PYTEST = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", "-p", "no:xdist"]


def test_a_later_test_logs_without_a_closed_stream_error() -> None:
    ran = subprocess.run(
        [*PYTEST, "-rA", *CASES],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=240,
    )
    output = ran.stdout + ran.stderr
    assert ran.returncode == 0, output[-3000:]
    # With `-rA` the summary lists each test in the order it ran: "PASSED <node id>".
    ran_in_order = [
        line[len("PASSED ") :] for line in ran.stdout.splitlines() if line.startswith("PASSED ")
    ]
    assert ran_in_order == list(CASES), output[-3000:]
    assert "I/O operation on closed file" not in output
    assert "Logging error in Loguru Handler" not in output
