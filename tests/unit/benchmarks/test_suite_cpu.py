"""The suite's CPU per test: a pytest plugin writes each test's line, a command sums them."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.suite_cpu import TestCpu, main, read, summary

TESTS = """
import subprocess
import sys


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "sum(range(10**6))"], check=True)


def test_starts_nothing():
    assert sum(range(10)) == 45
"""


def _session(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *options: str
) -> pytest.RunResult:
    pytester.makepyfile(test_work=TESTS)
    # Only this plugin: loading every installed one took most of an inner session's ~1.5 s.
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    return pytester.runpytest_inprocess("-q", "-p", "benchmarks.suite_cpu", *options)


def test_each_test_gets_a_line_with_the_cpu_of_the_processes_it_started(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "cpu"
    ran = _session(pytester, monkeypatch, f"--suite-cpu={out}")

    assert ran.ret == 0, ran.outlines
    lines = {line.id: line for line in read(out)}
    assert set(lines) == {
        "test_work.py::test_starts_a_process",
        "test_work.py::test_starts_nothing",
    }
    started = lines["test_work.py::test_starts_a_process"]
    # The child's CPU counts to the test that reaped it, not to the process's own.
    assert started.children > 0
    assert started.cpu == started.own + started.children
    assert all(line.wall >= 0 and line.own >= 0 for line in lines.values())


def test_without_the_option_the_plugin_writes_nothing(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    ran = _session(pytester, monkeypatch)

    assert ran.ret == 0, ran.outlines
    assert not list(pytester.path.rglob("*.jsonl"))


def test_a_directory_that_cannot_be_made_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")

    ran = _session(pytester, monkeypatch, f"--suite-cpu={tmp_path / 'file' / 'cpu'}")

    assert ran.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--suite-cpu: cannot create {tmp_path / 'file' / 'cpu'}: Not a directory" in "\n".join(
        ran.errlines
    )
    assert "Traceback" not in "\n".join(ran.outlines + ran.errlines)


def test_the_directory_as_a_word_of_its_own_is_a_usage_error_before_any_test(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # pytest decides its root directory before it loads the plugin, with the directory
    # read as a path of tests: outside the checkout the suite ran without its settings.
    out = tmp_path / "elsewhere" / "cpu"

    ran = _session(pytester, monkeypatch, "--suite-cpu", str(out))

    assert ran.ret == pytest.ExitCode.USAGE_ERROR
    assert f"write --suite-cpu={out} in one word" in "\n".join(ran.errlines)
    assert "Traceback" not in "\n".join(ran.outlines + ran.errlines)
    assert not out.exists()


def test_a_directory_holding_an_earlier_runs_figures_is_a_usage_error_and_kept(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "cpu"
    assert _session(pytester, monkeypatch, f"--suite-cpu={out}").ret == 0
    first = {path.name: path.read_bytes() for path in out.iterdir()}

    again = _session(pytester, monkeypatch, f"--suite-cpu={out}")

    assert again.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        f"--suite-cpu: {out} already holds an earlier run's figures (1 file), which this"
        " run's would be added to" in "\n".join(again.errlines)
    )
    assert "Traceback" not in "\n".join(again.outlines + again.errlines)
    # Nothing ran: the first run's figures are all there is, as they were.
    assert {path.name: path.read_bytes() for path in out.iterdir()} == first
    assert len(read(out)) == 2


def test_the_summary_ranks_folders_and_tests_by_cpu() -> None:
    tests = [
        TestCpu(id="tests/e2e/action/test_a.py::test_one", wall=3.0, own=0.5, children=2.0),
        TestCpu(id="tests/e2e/action/test_b.py::test_two", wall=1.0, own=0.1, children=0.4),
        TestCpu(id="tests/security/test_c.py::test_three", wall=4.0, own=0.2, children=3.0),
    ]

    text = summary(tests, most=2)

    assert text.splitlines()[0] == (
        "3 tests: 6.2 s of CPU (0.8 s in the processes that ran them, 5.4 s in their children)"
        " over 8.0 s of tests' wall time"
    )
    folders = [
        line for line in text.splitlines() if line.endswith((" tests/e2e/action |", ".py |"))
    ]
    assert folders == [
        "| 3.2 | 4.0 | 1 | tests/security/test_c.py |",
        "| 3.0 | 4.0 | 2 | tests/e2e/action |",
    ]
    assert "| 3.2 | 4.0 | tests/security/test_c.py::test_three |" in text
    assert "test_two" not in text  # `most` rows only


def test_the_command_prints_the_summary_or_one_error_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = TestCpu(id="tests/unit/test_x.py::test_y", wall=0.2, own=0.1, children=0.0)
    (tmp_path / "1.jsonl").write_text(line.model_dump_json() + "\n", encoding="utf-8")

    assert main([str(tmp_path)]) == 0
    assert "| 0.1 | 0.2 | tests/unit/test_x.py::test_y |" in capsys.readouterr().out

    assert main([str(tmp_path / "absent")]) == 1
    assert capsys.readouterr().err == f"error: no test's CPU time in {tmp_path / 'absent'}\n"

    (tmp_path / "2.jsonl").write_text("{not json\n", encoding="utf-8")
    assert main([str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"error: cannot read {tmp_path}: ") and error.count("\n") == 1
