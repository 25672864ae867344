"""The benchmark runner works end to end on tiny workloads (no timing is asserted)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.action import CPU_PROBE_DIR
from benchmarks.image import step_times
from benchmarks.instructions import CountError, collected
from benchmarks.report import Figure, Report, Target, render_table, this_machine
from benchmarks.run import BENCHMARKS, OPT_IN, main
from benchmarks.scan import scan_once


def _run(tmp_path: Path, *names: str) -> tuple[int, Report]:
    output = tmp_path / "latest.json"
    code = main(["--quick", "--only", *names, "--output", str(output)])
    return code, Report.model_validate_json(output.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_scan_benchmark_writes_figures_as_json_and_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = _run(tmp_path, "scan")

    assert code == 0
    assert report.quick and report.repetitions == 1 and not report.skipped
    by_name = {(f.benchmark, f.name): f for f in report.figures}
    found = by_name[("scan: 250 labelled issues", "issues found")]
    requests = by_name[("scan: 250 labelled issues", "GitHub requests (3 pages of 100)")]
    assert found.value == 250
    assert requests.value == 3 and requests.passed is True
    mode = "scan mode: 10 labelled issues"
    assert by_name[(mode, "issue-list requests")].value == 1
    assert by_name[(mode, "issues handed out (`scan_limit` 20)")].value == 10
    assert by_name[(mode, "GitHub requests (1 pages of 100)")].passed is True
    assert (mode, "`amelia action` wall time (installed console script)") in by_name
    raw = json.loads((tmp_path / "latest.json").read_text(encoding="utf-8"))
    assert set(raw) == {"machine", "quick", "repetitions", "figures", "skipped", "notes"}
    assert raw["machine"]["cpus"] >= 1
    printed = capsys.readouterr().out
    assert (
        "| scan: 250 labelled issues | GitHub requests (3 pages of 100) | 3 requests |" in printed
    )


@pytest.mark.slow
def test_api_overhead_benchmark_runs_both_sides_of_the_session(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "overhead-api")

    assert code == 0, report.skipped
    figures = {f.name: f for f in report.figures}
    bare = figures["pydantic-ai Agent.run 2-turn session"]
    driven = figures["ApiDriver.execute_agentic"]
    ratio = figures["overhead ratio (driver / bare)"]
    assert len(bare.samples) == len(driven.samples) == 2
    assert ratio.value == pytest.approx(driven.value / bare.value)
    assert ratio.target == Target(limit=1.10)
    extra_cpu = figures["driver's extra CPU on the event-loop thread"]
    bound = figures["overhead bound (1 + extra CPU / bare wall time)"]
    assert len(extra_cpu.samples) == 2 and all(cpu > 0 for cpu in extra_cpu.samples)
    assert bound.value == pytest.approx(1 + max(0.0, extra_cpu.value) / bare.value)
    per_message = figures["amelia's CPU per message (least extra CPU / messages yielded)"]
    assert per_message.unit == "µs"
    long = {f.name: f for f in report.figures if f.benchmark == "overhead: API, 6 tool calls"}
    assert "pydantic-ai Agent.run 6-call session (2 turns of 3)" in long
    assert long["overhead ratio (driver / bare), 6 tool calls"].target == Target(limit=1.05)
    long_bare = long["pydantic-ai Agent.run 6-call session (2 turns of 3)"]
    long_cpu = long["driver's extra CPU on the event-loop thread, 6 tool calls"]
    assert len(long_bare.samples) == len(long_cpu.samples) == 2
    long_name = "amelia's CPU per message (least extra CPU / messages yielded), 6 tool calls"
    assert long[long_name].unit == "µs"
    # The driver behind the credential proxy, recording off and on, against the same target.
    for proxy in ("recording off", "recording on"):
        side = long[f"ApiDriver.execute_agentic behind the credential proxy, 6 tool calls, {proxy}"]
        proxied = long[f"overhead ratio (driver / bare), 6 tool calls, {proxy}"]
        assert proxied.value == pytest.approx(side.value / long_bare.value)
        assert proxied.target == Target(limit=1.05)
        least = long[f"overhead ratio, least of each side (driver / bare), 6 tool calls, {proxy}"]
        assert least.value == pytest.approx(min(side.samples) / min(long_bare.samples))
        assert least.target == Target(limit=1.05)
        rounds = long[
            f"overhead ratio, median of the rounds' own (driver / bare), 6 tool calls, {proxy}"
        ]
        assert rounds.samples == pytest.approx(
            [d / b for b, d in zip(long_bare.samples, side.samples, strict=True)]
        )
        assert rounds.target == Target(limit=1.05)
    size = long["recording of the session, 6 tool calls"]
    assert size.unit == "KiB" and len(size.samples) == 2 and all(v > 1 for v in size.samples)
    off = long["ApiDriver.execute_agentic behind the credential proxy, 6 tool calls, recording off"]
    on = long["ApiDriver.execute_agentic behind the credential proxy, 6 tool calls, recording on"]
    cost = long["recording's cost (on / off, median of the rounds' own), 6 tool calls"]
    assert cost.samples == pytest.approx(
        [b / a for a, b in zip(off.samples, on.samples, strict=True)]
    )
    assert cost.target == Target(limit=1.05)
    thread = long["recording's CPU on its own thread, 6 tool calls"]
    assert thread.unit == "ms" and len(thread.samples) == 2 and all(v > 0 for v in thread.samples)


@pytest.mark.slow
def test_recording_size_benchmark_measures_plan_and_implement_recordings(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "recording-size")

    assert code == 0, report.skipped
    figures = {f.name: f for f in report.figures}
    for command in ("plan", "implement"):
        whole = figures[f"/amelia {command}: whole recording"]
        model = figures[f"/amelia {command}: model.jsonl"]
        assert whole.unit == model.unit == "KiB"
        assert whole.value > model.value > 1
        assert "model exchanges" in whole.note


def test_sanitize_benchmark_times_hostile_bodies_against_plain_text(tmp_path: Path) -> None:
    code, report = _run(tmp_path, "sanitize")

    assert code == 0, report.skipped
    figures = {f.name: f for f in report.figures}
    plain = figures["plain text wall time"]
    nested = figures["nested HTML comments wall time"]
    ratio = figures["nested HTML comments / plain text"]
    assert ratio.value == pytest.approx(nested.value / plain.value)
    assert ratio.target == Target(limit=3.0)
    assert "hidden elements forming new ones / plain text" in figures


def test_scan_counts_one_request_per_page() -> None:
    found, requests, _, _ = scan_once(201)

    assert (found, requests) == (201, 3)


def test_a_failing_benchmark_is_reported_as_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(issues: int) -> tuple[int, int, float, float]:
        raise RuntimeError("local server refused")

    monkeypatch.setattr("benchmarks.scan.scan_once", broken)

    code, report = _run(tmp_path, "scan")

    assert code == 1
    assert report.skipped == {"scan": "RuntimeError: local server refused"}
    assert "| scan | not measured: RuntimeError: local server refused |" in render_table(report)


def test_table_marks_missed_targets() -> None:
    report = Report(
        machine=this_machine(),
        quick=True,
        repetitions=1,
        figures=[
            Figure(benchmark="b", name="fast", value=0.2, unit="s", target=Target(limit=0.4)),
            Figure(benchmark="b", name="slow", value=0.9, unit="s", target=Target(limit=0.4)),
        ],
    )

    table = render_table(report)

    assert "| b | fast | 0.2 s | <= 0.4 s | yes |" in table
    assert "| b | slow | 0.9 s | <= 0.4 s | **no** |" in table


def test_the_cpu_probe_stamps_a_process_cpu_time_at_its_first_connection(tmp_path: Path) -> None:
    stamp = tmp_path / "first-request-cpu"
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        connect = f"import socket; socket.create_connection(('127.0.0.1', {port})).close()"
        for path in ([], [str(CPU_PROBE_DIR)]):
            environment = {
                **os.environ,
                "PYTHONPATH": os.pathsep.join(path),
                "AMELIA_BENCHMARK_CPU_FILE": str(stamp),
            }
            subprocess.run([sys.executable, "-c", connect], env=environment, check=True)
            assert stamp.is_file() == bool(path)

    assert 0 < float(stamp.read_text(encoding="utf-8")) < 60


def test_the_image_benchmark_runs_only_when_named_and_reads_buildkits_step_times() -> None:
    assert "image" in BENCHMARKS and "image" in OPT_IN
    log = (
        "#4 [builder 1/9] FROM docker.io/library/debian:bookworm-slim\n#4 DONE 0.0s\n"
        "#7 [builder 2/9] RUN apt-get update     && apt-get install -y python3\n"
        "#7 0.130 Get:1 http://deb.debian.org/debian bookworm InRelease\n#7 DONE 14.8s\n"
        "#10 [internal] load build context\n#10 DONE 0.1s\n"
        "#12 [builder 6/9] RUN uv sync\n#12 CACHED\n"
    )
    assert step_times(log) == {
        "[builder 1/9] FROM docker.io/library/debian:bookworm-slim": 0.0,
        "[builder 2/9] RUN apt-get update && apt-get install -y python3": 14.8,
    }


def test_the_ci_wait_benchmark_counts_few_requests_for_a_five_minute_wait() -> None:
    from benchmarks.ci_wait import wait_costs

    requests, conditional, waited = wait_costs(5.0)
    assert waited >= 5.0
    assert conditional >= 1 and requests <= conditional + 6


def test_the_instructions_benchmark_runs_only_when_named_and_reads_callgrinds_total() -> None:
    assert "overhead-api-instructions" in BENCHMARKS and "overhead-api-instructions" in OPT_IN
    output = (
        "==4711== Callgrind, a call-graph generating cache profiler\n"
        "==4711== For interactive control, run 'callgrind_control -h'.\n"
        "==4711== \n==4711== Events    : Ir\n==4711== Collected : 711154052\n"
        "==4711== \n==4711== I   refs:      711,154,052\n"
    )
    assert collected(output) == 711_154_052
    with pytest.raises(CountError, match="0 totals"):
        collected("==4711== Memcheck, a memory error detector\n")


@pytest.mark.parametrize("side", ["bare", "recording on"])
def test_a_side_of_the_instructions_benchmark_plays_its_sessions_in_a_process_of_its_own(
    tmp_path: Path, side: str
) -> None:
    # Outside callgrind and not counted: the same process the benchmark starts under it.
    command = [sys.executable, "-m", "benchmarks.instructions", side, str(tmp_path)]
    done = subprocess.run(
        [*command, "--turns", "1", "--calls", "2"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        check=False,
    )

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"side": side, "messages": 0 if side == "bare" else 6}
    played = sorted(path.name for path in tmp_path.iterdir() if path.name != "amelia-home")
    prefix = side.replace(" ", "-")
    assert played == [f"{prefix}-counted", f"{prefix}-warm-up"]
    for workdir in played:
        recorded = (tmp_path / workdir / "recording" / "model.jsonl").is_file()
        assert recorded == (side == "recording on")


def test_a_side_counted_outside_callgrind_stops_before_its_sessions(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "benchmarks.instructions", "bare", str(tmp_path / "root")]
    done = subprocess.run(
        [*command, "--turns", "1", "--calls", "1", "--counted"],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
        check=False,
    )

    assert done.returncode == 1
    assert done.stderr.startswith("error: callgrind_control ")
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "root").exists() or not any((tmp_path / "root").iterdir())
