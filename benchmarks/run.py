"""Run the benchmarks, print a Markdown table and write every figure as JSON.

uv run python -m benchmarks                 # all, ~6 minutes
uv run python -m benchmarks --quick         # one repetition, tiny workloads
uv run python -m benchmarks --only startup scan
sudo uv run python -m benchmarks --only image   # the Action's image under Docker (root)
uv run python -m benchmarks --only overhead-api-instructions   # under callgrind, ~15 min
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from benchmarks.report import Figure, Report, render_machine, render_table, this_machine

DEFAULT_OUTPUT = Path(__file__).resolve().parent / "results" / "latest.json"


class Settings(BaseModel):
    """How big each workload is; `--quick` shrinks them all."""

    model_config = ConfigDict(frozen=True)

    quick: bool
    repetitions: int
    turns: int
    long_turns: int
    calls_per_long_turn: int
    long_repetitions: int
    """The long overhead session: `long_turns` turns of `calls_per_long_turn` tool calls."""
    help_runs: int
    memory_runs: int
    scan_sizes: tuple[int, ...]
    scan_mode_sizes: tuple[int, ...]
    """Through the installed `amelia action` (a whole process per size); 10,000 only via
    the client."""

    @classmethod
    def for_run(cls, quick: bool, repetitions: int | None) -> Settings:
        if quick:
            return cls(
                quick=True,
                repetitions=repetitions or 1,
                turns=2,
                long_turns=2,
                calls_per_long_turn=3,
                long_repetitions=1,
                help_runs=2,
                memory_runs=1,
                scan_sizes=(10, 250),
                scan_mode_sizes=(10,),
            )
        return cls(
            quick=False,
            repetitions=repetitions or 5,
            turns=10,
            long_turns=30,
            calls_per_long_turn=10,
            long_repetitions=3,
            help_runs=11,
            memory_runs=3,
            scan_sizes=(100, 1_000, 10_000),
            scan_mode_sizes=(100, 1_000, 3_000),
        )


class Outcome(BaseModel):
    """What one benchmark produced."""

    figures: list[Figure]
    notes: list[str] = []


Benchmark = Callable[[Settings, Path, dict[str, object]], Outcome]


def _startup(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.startup import startup

    figures, offenders = startup(settings.help_runs)
    return Outcome(figures=figures, notes=[f"slowest imports of `amelia --help`: {offenders}"])


def _overhead_cli(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.overhead import Shape, claude_cli_overhead

    long_session = Shape(settings.long_turns, settings.calls_per_long_turn)
    figures = claude_cli_overhead(
        root,
        settings.repetitions,
        settings.turns,
        long_session=long_session,
        long_repetitions=settings.long_repetitions,
    )
    return Outcome(figures=figures)


def _overhead_api(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.overhead import Shape, api_overhead

    # In-process runs take well under a second: twice the repetitions for a steadier median;
    # the long session (~2.3 s a side) five times as many rounds, since a shared machine's
    # speed drifts by ±10 % between rounds, several times what recording costs (~2 %).
    rounds = settings.long_repetitions * (2 if settings.quick else 5)
    long_session = Shape(settings.long_turns, settings.calls_per_long_turn)
    figures = api_overhead(
        root,
        settings.repetitions * 2,
        settings.turns,
        long_session=long_session,
        long_repetitions=rounds,
    )
    return Outcome(figures=figures)


def _overhead_api_instructions(
    settings: Settings, root: Path, shared: dict[str, object]
) -> Outcome:
    from benchmarks.instructions import instruction_figures, unavailable

    reason = unavailable()
    if reason is not None:
        return Outcome(figures=[], notes=[f"not measured: {reason}"])
    figures = instruction_figures(root, settings.long_turns, settings.calls_per_long_turn)
    return Outcome(
        figures=figures,
        notes=[
            "Each side counted once, in a process of its own under callgrind: one session "
            "after a warm-up one (benchmarks/instructions.py)."
        ],
    )


def _recording_size(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.recording import recording_sizes

    return Outcome(
        figures=recording_sizes(root),
        notes=[
            "Recording's cost in time is in the overhead benchmarks: each driver behind the "
            "credential proxy with recording off and on, against the same bare side."
        ],
    )


def _memory(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.memory import measure_memory

    figures, requests = measure_memory(root, settings.memory_runs)
    shared["pipeline_requests"] = requests
    shared["pipeline_dir"] = root / f"pipeline-{settings.memory_runs - 1}"
    return Outcome(figures=figures)


def _prompts(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from amelia.testing.anthropic_script import RecordedRequest
    from benchmarks.memory import pipeline_run
    from benchmarks.prompts import prompt_overhead

    requests = shared.get("pipeline_requests")
    workdir = shared.get("pipeline_dir")
    if not isinstance(requests, list) or not isinstance(workdir, Path):
        workdir = root / "pipeline"
        _, requests = pipeline_run(workdir)
    recorded = [request for request in requests if isinstance(request, RecordedRequest)]
    return Outcome(
        figures=prompt_overhead(workdir / "greeter", workdir / "claude-config", recorded)
    )


def _scan(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.scan import action_scan, scan_scale

    return Outcome(
        figures=[
            *scan_scale(settings.scan_sizes),
            *action_scan(root / "scan-mode", settings.scan_mode_sizes),
        ],
        notes=[
            "The scan lists the repository's issues by label, which GitHub pages without the "
            "search API's 1,000-result cap; `amelia action` hands out at most `scan_limit` "
            "(20 by default) of them and leaves the rest for the next scan."
        ],
    )


def _sanitize(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.sanitize import sanitize_cost

    return Outcome(figures=sanitize_cost(settings.help_runs))


def _action(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from amelia.action.modes import MODE_MODULES
    from benchmarks.action import action_implement_and_review, action_plan

    figures = action_plan(root / "plan", settings.memory_runs)
    missing = [kind for kind in ("implement", "review") if kind not in MODE_MODULES]
    if missing:
        notes = [f"no `{kind}` mode in `amelia action` yet: not measured" for kind in missing]
        return Outcome(figures=figures, notes=notes)
    figures += action_implement_and_review(root / "more")
    return Outcome(figures=figures)


def _incremental_review(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.incremental import MODULE_LINES, incremental_review

    pushes = 2 if settings.quick else 5
    return Outcome(
        figures=incremental_review(root, pushes),
        notes=[
            f"Each push adds a {MODULE_LINES}-line module; the scripted reviewer finds one "
            "thing in every module its diff shows and approves. A finding still open is "
            "never posted twice in either scope."
        ],
    )


def _image(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.image import image_benchmark, unavailable

    reason = unavailable()
    if reason is not None:
        return Outcome(figures=[], notes=[f"not measured: {reason}"])
    return Outcome(figures=image_benchmark(root, settings.memory_runs))


def _ci_wait(settings: Settings, root: Path, shared: dict[str, object]) -> Outcome:
    from benchmarks.ci_wait import ci_wait

    return Outcome(figures=ci_wait((5.0,) if settings.quick else (5.0, 30.0, 60.0)))


BENCHMARKS: dict[str, Benchmark] = {
    "startup": _startup,
    "action": _action,
    "overhead-cli": _overhead_cli,
    "overhead-api": _overhead_api,
    "overhead-api-instructions": _overhead_api_instructions,
    "recording-size": _recording_size,
    "memory": _memory,
    "prompts": _prompts,
    "scan": _scan,
    "sanitize": _sanitize,
    "incremental-review": _incremental_review,
    "ci-wait": _ci_wait,
    "image": _image,
}
OPT_IN = frozenset({"image", "overhead-api-instructions"})
"""Run only when named with --only: the image benchmark starts dockerds of its own (root),
and counting instructions under callgrind takes ~15 minutes."""


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one repetition, tiny workloads")
    parser.add_argument("--repetitions", type=int, help="runs per timed figure (default 5)")
    parser.add_argument(
        "--only", nargs="+", choices=sorted(BENCHMARKS), help="run only these benchmarks"
    )
    parser.add_argument(
        "--output", type=Path, default=DEFAULT_OUTPUT, help=f"JSON file (default {DEFAULT_OUTPUT})"
    )
    return parser.parse_args(argv)


def run(names: Sequence[str], settings: Settings) -> Report:
    """Run `names` in order; a benchmark that fails is reported as skipped with its error."""
    report = Report(machine=this_machine(), quick=settings.quick, repetitions=settings.repetitions)
    shared: dict[str, object] = {}
    with tempfile.TemporaryDirectory(prefix="amelia-bench-") as scratch:
        for name in names:
            started = time.monotonic()
            print(f"… {name}", file=sys.stderr, flush=True)
            root = Path(scratch) / name
            root.mkdir()
            try:
                outcome = BENCHMARKS[name](settings, root, shared)
            except Exception as error:  # one broken benchmark must not hide the others
                report.skipped[name] = f"{type(error).__name__}: {error}"[:500]
                continue
            report.figures.extend(outcome.figures)
            if outcome.notes:
                report.notes[name] = outcome.notes
            elapsed = time.monotonic() - started
            print(f"  {name} done in {elapsed:.1f} s", file=sys.stderr, flush=True)
    return report


def main(argv: Sequence[str] | None = None) -> int:
    """Exit 0 when every benchmark ran (missed targets are reported, not failures)."""
    arguments = _arguments(argv)
    settings = Settings.for_run(arguments.quick, arguments.repetitions)
    report = run(arguments.only or [name for name in BENCHMARKS if name not in OPT_IN], settings)
    output: Path = arguments.output
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(report.model_dump_json(indent=2) + "\n", encoding="utf-8")
    print(f"Machine: {render_machine(report.machine)}\n")
    print(render_table(report))
    for name, notes in report.notes.items():
        for note in notes:
            print(f"\n{name}: {note}")
    print(f"\nJSON: {output}")
    return 1 if report.skipped else 0
