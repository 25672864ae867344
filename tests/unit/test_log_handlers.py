"""No test leaves loguru writing to a stream that is closed once the test is over: a later
test's log records would each print an "I/O operation on closed file" traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

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
pytest session for both cases, which runs them in this order. It runs inside this test's
process (as `pytester` runs one), whose loguru is the one under test: a subprocess cost
~3.5 s of CPU, most of it importing what this process has already imported."""


def test_a_later_test_logs_without_a_closed_stream_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)  # node ids as given, the repository's configuration
    ran = pytester.runpytest_inprocess(
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:xdist",
        # Its last step collects the garbage of the whole process (~0.5 s in a worker).
        "-p",
        "no:unraisableexception",
        "-rA",
        *CASES,
    )
    output = "\n".join(ran.outlines + ran.errlines)
    assert ran.ret == 0, output[-3000:]
    # With `-rA` the summary lists each test in the order it ran: "PASSED <node id>".
    ran_in_order = [line[len("PASSED ") :] for line in ran.outlines if line.startswith("PASSED ")]
    assert ran_in_order == list(CASES), output[-3000:]
    assert "I/O operation on closed file" not in output
    assert "Logging error in Loguru Handler" not in output
