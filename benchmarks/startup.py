"""Start-up: wall time of `amelia --help` in a fresh process, and what its imports cost."""

from __future__ import annotations

import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.bytecode import cached_env, uncached_env, warm_cache
from benchmarks.report import Figure, Target

HELP_TARGET = Target(limit=0.15)
RESTART_TARGET = Target(limit=0.1)
"""CPU the restart without credentials may add to every agent command's start (CPU, not
wall time: wall times on a shared machine vary by more than the cost itself)."""
_ISOLATE = "from amelia.isolation.handoff import isolate_secrets; isolate_secrets()"
_PLANTED = {
    "INPUT_GITHUB_TOKEN": "ghs_" + "B" * 36,
    "INPUT_ANTHROPIC_API_KEY": "sk-ant-" + "b" * 40,
}
FLOOR_MODULES = ("amelia.github", "github", "pydantic_settings")
"""What `amelia action` cannot send its first GitHub request without: PyGithub (as amelia
imports it: `amelia.github` first defers its modules amelia never uses), and the
pydantic-settings its configuration is read with."""
_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


def amelia_command() -> list[str]:
    """The installed console script next to this interpreter (what a user runs)."""
    script = Path(sys.executable).parent / "amelia"
    if script.is_file():
        return [str(script)]
    found = shutil.which("amelia")
    return [found] if found else [sys.executable, "-m", "amelia.cli"]


def help_wall_time(runs: int, env: dict[str, str]) -> list[float]:
    return wall_times([*amelia_command(), "--help"], runs, env)


def wall_times(command: list[str], runs: int, env: dict[str, str]) -> list[float]:
    subprocess.run(command, capture_output=True, check=True, env=env)  # warm the page cache
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True, env=env)
        samples.append(time.perf_counter() - started)
    return samples


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `command` (both interpreters of a restart)."""
    cpu, started = _child_cpu(), time.perf_counter()
    subprocess.run(command, capture_output=True, check=True, env=env)
    return time.perf_counter() - started, _child_cpu() - cpu


def restart_cost(runs: int) -> tuple[list[float], list[float]]:
    """What `isolate_secrets()` adds when it restarts (credentials in the environment,
    handed over through a pipe) over when it has nothing to hand over, run by run: wall
    seconds and CPU seconds of the second interpreter start and the handover."""
    from amelia.redaction.names import is_secret_name

    command = [sys.executable, "-c", _ISOLATE]
    clean = {name: value for name, value in cached_env().items() if not is_secret_name(name)}
    planted = {**clean, **_PLANTED}
    _timed(command, planted)  # warm the page cache
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(runs):
        plain_wall, plain_cpu = _timed(command, clean)
        restarted_wall, restarted_cpu = _timed(command, planted)
        wall.append(max(0.0, restarted_wall - plain_wall))
        cpu.append(max(0.0, restarted_cpu - plain_cpu))
    return wall, cpu


def import_offenders(*arguments: str, top: int = 8) -> list[str]:
    """Packages by cumulative import time of `amelia <arguments>` (`python -X importtime`),
    slowest first."""
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "amelia.cli", *arguments],
        env=cached_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    roots: dict[str, int] = {}
    for line in completed.stderr.splitlines():
        found = _IMPORT_LINE.match(line)
        if found is None:
            continue
        package = found.group(4).split(".")[0]
        if package != "amelia":
            roots[package] = max(roots.get(package, 0), int(found.group(2)))
    ranked = sorted(roots.items(), key=lambda item: -item[1])[:top]
    return [f"{name}: {micros / 1000:.0f} ms" for name, micros in ranked]


def startup(runs: int) -> tuple[list[Figure], list[str]]:
    warm_cache()
    cached = help_wall_time(runs, cached_env())
    uncached = help_wall_time(runs, uncached_env())
    imports = "import " + ", ".join(FLOOR_MODULES)
    floor = wall_times([sys.executable, "-c", imports], runs, cached_env())
    restart_wall, restart_cpu = restart_cost(runs)
    figures = [
        Figure.median_of("start-up", "`amelia --help` wall time", cached, "s", HELP_TARGET),
        Figure.median_of(
            "start-up",
            "restart without credentials (`amelia action`, `run`, `plan`, ...): extra wall time",
            restart_wall,
            "s",
            note="isolate_secrets() with two credentials to hand over, minus without any",
        ),
        Figure.median_of(
            "start-up",
            "restart without credentials: extra CPU time",
            restart_cpu,
            "s",
            RESTART_TARGET,
            note="user + system time of both interpreters, minus one without a restart",
        ),
        Figure.median_of(
            "start-up",
            "`amelia --help` without bytecode cache",
            uncached,
            "s",
            note="PYTHONDONTWRITEBYTECODE=1 and an empty PYTHONPYCACHEPREFIX",
        ),
        Figure.median_of(
            "start-up",
            f"`python -c '{imports}'`: the libraries before the first GitHub request",
            floor,
            "s",
        ),
    ]
    return figures, import_offenders("--help")
