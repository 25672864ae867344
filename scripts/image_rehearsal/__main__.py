"""`scripts/rehearse-image`: build the Dockerfile without Docker, optionally start it.

The last line is `image rehearsal: ok (<N> MB)` on success; any failure exits 1 with a
message naming the Dockerfile instruction and its line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path

from amelia.testing.action_harness import ActionHarness
from scripts.image_rehearsal.base_image import default_cache_dir
from scripts.image_rehearsal.builder import RehearsalResult, RehearsalSettings, rehearse
from scripts.image_rehearsal.entrypoint import (
    image_command,
    input_variables,
    run_entrypoint,
)
from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.mounts import remove_tree
from scripts.image_rehearsal.plan_scenario import run_plan

REPO = Path(__file__).resolve().parents[2]


def _pairs(values: list[str], option: str) -> dict[str, str]:
    pairs = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep:
            raise SystemExit(f"{option} takes NAME=VALUE, got {value!r}")
        pairs[name] = rest
    return pairs


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rehearse-image", description=__doc__)
    parser.add_argument("--dockerfile", type=Path, default=REPO / "Dockerfile")
    parser.add_argument("--context", type=Path, default=REPO)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=default_cache_dir(),
        help="debootstrapped base and cached layers (default: $AMELIA_REHEARSAL_CACHE "
        "or /var/cache/amelia-rehearsal)",
    )
    parser.add_argument("--no-layer-cache", action="store_true", help="rebuild every step")
    parser.add_argument("--build-arg", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--verbose", action="store_true", help="show the output of RUN steps")
    run = parser.add_argument_group("starting the image like a GitHub container action")
    run.add_argument("--run-entrypoint", action="store_true")
    run.add_argument("--workspace", type=Path, help="mounted at /github/workspace")
    run.add_argument("--event", type=Path, help="event payload JSON file")
    run.add_argument("--input", action="append", default=[], metavar="NAME=VALUE")
    run.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    run.add_argument("--entrypoint", help="override the ENTRYPOINT (like runs.entrypoint)")
    run.add_argument("args", nargs="*", help="override CMD (like runs.args)")
    parser.add_argument(
        "--scenario",
        choices=["plan"],
        help="after the build, run the image's ENTRYPOINT through a scenario against local "
        "GitHub and model servers (plan: `/amelia plan` on an issue, plan branch pushed)",
    )
    return parser


def _run_scenario(result: RehearsalResult, directory: Path) -> list[str]:
    """The `/amelia plan` scenario of tests/integration/container; its problems (none: ok)."""
    with ActionHarness(directory) as harness:
        outcome = run_plan(result, harness)
    run = outcome.run
    print(f"scenario plan: {' '.join(run.command)} exited {run.returncode}")
    for name in ("branch", "plan_path", "conclusion"):
        print(f"scenario plan: output {name}={run.outputs.get(name, '')}")
    print(f"scenario plan: origin branches {' '.join(outcome.origin_branches)}")
    print(f"scenario plan: {len(outcome.progress_comments)} progress comment(s) posted")
    problems = outcome.problems()
    if problems:
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
    return problems


def _start(result: RehearsalResult, options: argparse.Namespace) -> int:
    workspace = options.workspace or Path(tempfile.mkdtemp(prefix="amelia-workspace-"))
    event = options.event.read_text() if options.event else json.dumps({})
    env = {**input_variables(_pairs(options.input, "--input")), **_pairs(options.env, "--env")}
    command = image_command(
        result.config,
        entrypoint=[options.entrypoint] if options.entrypoint else None,
        args=options.args or None,
    )
    print(f"starting {' '.join(command)} as a container action")
    run = run_entrypoint(
        result.root,
        env,
        workspace,
        event,
        command=command,
        image_env=result.config.env,
    )
    sys.stdout.write(run.stdout)
    sys.stderr.write(run.stderr)
    print(f"entrypoint exit code: {run.returncode}")
    for name, value in run.outputs.items():
        print(f"output {name}={value}")
    if run.step_summary:
        print("step summary:\n" + run.step_summary)
    if options.workspace is None:
        remove_tree(workspace)
    return run.returncode


def main(argv: list[str] | None = None) -> int:
    options = _parser().parse_args(argv)
    if os.geteuid() != 0:
        print("image rehearsal: FAILED: needs root (debootstrap, chroot, mount)", file=sys.stderr)
        return 1
    cache_dir: Path = options.cache_dir.resolve()
    # A terminated rehearsal still unmounts and deletes its work directory.
    signal.signal(signal.SIGTERM, lambda _signum, _frame: sys.exit(143))
    work_parent = _work_parent(cache_dir)
    _remove_abandoned_work_dirs(work_parent)
    work_dir = Path(tempfile.mkdtemp(prefix=f"work-{os.getpid()}-", dir=work_parent))
    started = time.monotonic()
    try:
        result = rehearse(
            RehearsalSettings(
                dockerfile=options.dockerfile.resolve(),
                context=options.context.resolve(),
                work_dir=work_dir,
                cache_dir=cache_dir,
                layer_cache=not options.no_layer_cache,
                build_args=_pairs(options.build_arg, "--build-arg"),
                verbose=options.verbose,
            )
        )
        print(
            f"built in {time.monotonic() - started:.0f}s: {result.steps_run} steps run, "
            f"{result.steps_cached} cached; entrypoint {list(result.config.entrypoint)}"
        )
        if options.run_entrypoint:
            returncode = _start(result, options)
            if returncode != 0:
                print(f"image rehearsal: FAILED: entrypoint exited {returncode}", file=sys.stderr)
                return 1
        if options.scenario == "plan":
            problems = _run_scenario(result, work_dir / "scenario-plan")
            if problems:
                failure = f"image rehearsal: FAILED: scenario plan: {'; '.join(problems)}"
                print(failure, file=sys.stderr)
                return 1
    except RehearsalError as exc:
        print(f"image rehearsal: FAILED: {exc}", file=sys.stderr)
        return 1
    finally:
        remove_tree(work_dir)
    print(f"image rehearsal: ok ({result.size_mb} MB)")
    return 0


def _remove_abandoned_work_dirs(parent: Path) -> None:
    """Work directories of rehearsals that were killed (their process is gone)."""
    for directory in parent.glob("work-*"):
        owner = directory.name.split("-")[1]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            remove_tree(directory)


def _work_parent(cache_dir: Path) -> Path:
    parent = cache_dir / "work"
    parent.mkdir(parents=True, exist_ok=True)
    return parent


if __name__ == "__main__":
    sys.exit(main())
