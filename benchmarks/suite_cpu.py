"""Where the test suite's CPU goes, test by test.

    uv run python -m pytest -n 3 -p benchmarks.suite_cpu --suite-cpu=DIR  # DIR/<pid>.jsonl
    uv run python -m benchmarks.suite_cpu DIR  # the folders and the tests that used most

DIR must hold no earlier run's figures (`*.jsonl`): their lines would be summed with this
run's.

(`python -m pytest`, not `pytest`: the plugin is imported before any test, from the
current directory, which only `python -m` puts on the path. `--suite-cpu=DIR` in one word:
pytest chooses its root directory, and with it the project's configuration, before it loads
this plugin, and reads a DIR given as a word of its own as a path of tests. A DIR outside the
checkout then moved the root and ran the suite without the project's settings.)

A test's CPU is its process's own (`getrusage(RUSAGE_SELF)`) and that of the child processes
the process reaped while the test ran (`RUSAGE_CHILDREN`): an `amelia` subprocess with the
Claude Code CLI and the git it ran, the agent user's processes. Not counted: a container's
processes (the Docker engine's children), and a process reaped after its test ended (it
counts to the test that reaps it).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator, Sequence
from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

__all__ = ["TestCpu", "main", "read", "summary"]

OPTION = "--suite-cpu"


class TestCpu(BaseModel):
    """One test's line in a worker's file."""

    __test__ = False  # a model, not a pytest test class
    model_config = ConfigDict(frozen=True)

    id: str
    wall: float
    own: float
    """CPU seconds of the process that ran the test (a pytest worker)."""
    children: float
    """CPU seconds of the child processes it reaped meanwhile."""

    @property
    def cpu(self) -> float:
        return self.own + self.children


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        OPTION,
        metavar="DIR",
        default=None,
        help="write each test's CPU time (its process's and its reaped children's) to DIR",
    )


def pytest_configure(config: pytest.Config) -> None:
    directory = config.getoption(OPTION)
    if directory is None:
        return
    if OPTION in config.invocation_params.args:
        raise pytest.UsageError(
            f"write {OPTION}={directory} in one word: pytest chose its root directory"
            f" ({config.rootpath}) before this plugin was loaded, taking {directory} for a"
            " path of tests"
        )
    try:
        Path(directory).mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise pytest.UsageError(f"{OPTION}: cannot create {directory}: {error.strerror}") from None
    # The main process only: an xdist worker starts while the others may have written
    # their first lines already.
    if not hasattr(config, "workerinput") and (earlier := list(Path(directory).glob("*.jsonl"))):
        raise pytest.UsageError(
            f"{OPTION}: {directory} already holds an earlier run's figures"
            f" ({len(earlier)} file{'' if len(earlier) == 1 else 's'}), which this run's would"
            " be added to: give a new directory, or remove them"
        )


def _cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    directory = item.config.getoption(OPTION)
    if directory is None:
        return (yield)
    own, children = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    try:
        return (yield)
    finally:
        line = TestCpu(
            id=item.nodeid,
            wall=time.monotonic() - started,
            own=_cpu(resource.RUSAGE_SELF) - own,
            children=_cpu(resource.RUSAGE_CHILDREN) - children,
        )
        with (Path(directory) / f"{os.getpid()}.jsonl").open("a", encoding="utf-8") as out:
            out.write(line.model_dump_json() + "\n")


def read(directory: Path) -> list[TestCpu]:
    """Every test's line in the workers' files under `directory`."""
    return [
        TestCpu.model_validate_json(line)
        for path in sorted(directory.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _folder(test_id: str) -> str:
    """tests/<kind>/<folder or file>: `tests/e2e/action`, `tests/security/test_x.py`."""
    return "/".join(test_id.split("::")[0].split("/")[:3])


def summary(tests: Sequence[TestCpu], *, most: int = 20) -> str:
    """The total, the folders by CPU, and the `most` tests that used the most."""
    own = sum(t.own for t in tests)
    children = sum(t.children for t in tests)
    wall = sum(t.wall for t in tests)
    lines = [
        f"{len(tests)} tests: {own + children:.1f} s of CPU ({own:.1f} s in the processes that"
        f" ran them, {children:.1f} s in their children) over {wall:.1f} s of tests' wall time",
        "",
        "| CPU s | wall s | tests | folder |",
        "| ---: | ---: | ---: | --- |",
    ]
    folders: dict[str, list[TestCpu]] = defaultdict(list)
    for test in tests:
        folders[_folder(test.id)].append(test)
    ranked = sorted(folders.items(), key=lambda item: -sum(t.cpu for t in item[1]))
    for name, members in ranked[:most]:
        cpu, spent = sum(t.cpu for t in members), sum(t.wall for t in members)
        lines.append(f"| {cpu:.1f} | {spent:.1f} | {len(members)} | {name} |")
    lines += ["", "| CPU s | wall s | test |", "| ---: | ---: | --- |"]
    for test in sorted(tests, key=lambda t: -t.cpu)[:most]:
        lines.append(f"| {test.cpu:.1f} | {test.wall:.1f} | {test.id} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.suite_cpu",
        description="Summarise the CPU time each test used, as written by --suite-cpu=DIR.",
    )
    parser.add_argument("directory", type=Path, help="the DIR given to pytest's --suite-cpu")
    parser.add_argument("--most", type=int, default=20, help="rows of each table (default 20)")
    arguments = parser.parse_args(argv)
    if arguments.most < 1:
        parser.error("--most must be at least 1")
    try:
        tests = read(arguments.directory)
    except (OSError, UnicodeDecodeError, ValidationError) as error:
        reason = str(error).splitlines()[0]
        print(f"error: cannot read {arguments.directory}: {reason}", file=sys.stderr)
        return 1
    if not tests:
        print(f"error: no test's CPU time in {arguments.directory}", file=sys.stderr)
        return 1
    print(summary(tests, most=arguments.most))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
