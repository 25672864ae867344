"""`amelia action` through src/amelia/testing/action_harness.py: on a `/amelia plan` comment,
the time to its first GitHub request; for plan, implement and pull request review runs, every
request made, counted at the local GitHub server by endpoint.

The local server's recorded requests carry no time, so the server used here stamps each one
as it is recorded. The clock starts just before the harness starts the amelia process.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from pathlib import Path
from typing import Any

from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import ScriptFunction, Turn, text, tool_use
from amelia.testing.github_server import FakeGitHubServer, RecordedRequest
from benchmarks.bytecode import CACHE_DIR, warm_cache
from benchmarks.report import Figure, Target

FIRST_REQUEST_TARGET = Target(limit=0.25)
PROGRESS_TARGET = Target(limit=1.5)
PLAN_REQUESTS_TARGET = Target(limit=8)
EDITS_PER_STAGE = 1
PLAN_STAGES = 1
_COMMENT_EDIT = re.compile(r"PATCH /repos/[^/]+/[^/]+/issues/comments/\d+")
_PROGRESS_POST = re.compile(r"POST /repos/[^/]+/[^/]+/issues/\d+/comments")
_NUMBER = re.compile(r"/\d+")


class _StampedRequests(list[RecordedRequest]):
    """The server's request log, noting when each request arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived: list[float] = []

    def append(self, request: RecordedRequest) -> None:
        self.arrived.append(time.monotonic())
        super().append(request)


class StampedGitHubServer(FakeGitHubServer):
    """The local GitHub server with an arrival time per recorded request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.stamped = _StampedRequests()
        self.requests = self.stamped


def endpoint(request: RecordedRequest) -> str:
    """`METHOD /path` with the repository and numbers generalised."""
    path = re.sub(r"^/repos/[^/]+/[^/]+", "/repos/{owner}/{repo}", request.path)
    return f"{request.method} {_NUMBER.sub('/{n}', path)}"


class PlanRun:
    """One measured `/amelia plan` run."""

    def __init__(
        self, result: ActionRun, started: float, arrived: list[float], first_request_cpu: float
    ) -> None:
        self.result = result
        self.first_request_seconds = arrived[0] - started if arrived else float("nan")
        self.first_request_cpu = first_request_cpu
        """CPU seconds the process had used when it opened its first connection."""
        spelled = [f"{r.method} {r.path}" for r in result.github_requests]
        timed = zip(spelled, arrived, strict=True)
        posts = [at for line, at in timed if _PROGRESS_POST.match(line)]
        self.progress_post_seconds = posts[0] - started if posts else float("nan")


def _probed(cpu_file: Path) -> dict[str, str]:
    """The environment that makes the amelia process stamp its CPU time into `cpu_file` at
    its first connection (see benchmarks/cpu_probe/sitecustomize.py)."""
    path = [str(CPU_PROBE_DIR), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {
        **_CACHED,
        "PYTHONPATH": os.pathsep.join(path),
        "AMELIA_BENCHMARK_CPU_FILE": str(cpu_file),
    }


def plan_once(root: Path) -> PlanRun:
    harness = ActionHarness(root)
    server = StampedGitHubServer()
    harness.github = server
    cpu_file = root / "first-request-cpu"
    with harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
        event = harness.comment_event(number, "/amelia plan")
        before = len(server.stamped)
        started = time.monotonic()
        result = harness.run("issue_comment", event, env=_probed(cpu_file))
        arrived = server.stamped.arrived[before:]
    if result.exit_code != 0 or result.outputs.get("conclusion") != "success":
        raise RuntimeError(f"plan run exited {result.exit_code}: {result.stderr[-600:]}")
    cpu = float(cpu_file.read_text(encoding="utf-8")) if cpu_file.is_file() else float("nan")
    return PlanRun(result, started, arrived, cpu)


def action_plan(root: Path, repetitions: int) -> list[Figure]:
    warm_cache()
    plan_once(root / "warm-up")  # compiles the action's own modules into the cache
    runs = [plan_once(root / f"run-{index}") for index in range(max(1, repetitions))]
    first = [run.first_request_seconds for run in runs]
    cpu = [run.first_request_cpu for run in runs]
    progress = [run.progress_post_seconds for run in runs]
    started = "`amelia action` (/amelia plan) →"
    return [
        Figure.median_of(
            "start-up", f"{started} first GitHub request", first, "s", FIRST_REQUEST_TARGET
        ),
        Figure.median_of(
            "start-up", f"{started} first GitHub request: the process's CPU time", cpu, "s"
        ),
        Figure.median_of(
            "start-up", f"{started} progress comment posted", progress, "s", PROGRESS_TARGET
        ),
        *request_figures("plan run", runs[-1].result, PLAN_STAGES, PLAN_REQUESTS_TARGET),
    ]


FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "farewell mirrors greet",
    "comments": [
        {"path": "greeter/farewell.py", "line": 2, "severity": "minor", "body": "Add a docstring"}
    ],
}
_CACHED = {"PYTHONPYCACHEPREFIX": str(CACHE_DIR)}
CPU_PROBE_DIR = Path(__file__).resolve().parent / "cpu_probe"


def _pipeline_script(workspace: Path) -> ScriptFunction:
    """Architect plans, developer writes one file, reviewer approves with one comment."""
    write = {"file_path": str(workspace / "greeter" / "farewell.py"), "content": FAREWELL}
    roles: dict[str, list[Turn]] = {
        "developer": [[tool_use("Write", write)], [text("Added greeter/farewell.py")]],
        "reviewer": [[tool_use("StructuredOutput", APPROVED)], [text("ok")]],
    }
    return plan_script(roles=roles)


def _checked(result: ActionRun, what: str) -> ActionRun:
    if result.exit_code != 0 or result.outputs.get("conclusion") != "success":
        raise RuntimeError(f"{what} run exited {result.exit_code}: {result.stderr[-600:]}")
    return result


def implement_once(root: Path) -> ActionRun:
    """`/amelia implement` on an issue planned just before (the plan run is not counted)."""
    with ActionHarness(root, script=_pipeline_script(root / "workspace")) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
        planned = harness.run("issue_comment", harness.comment_event(number, "/amelia plan"))
        _checked(planned, "plan")
        harness.fresh_checkout()
        event = harness.comment_event(number, "/amelia implement")
        return _checked(harness.run("issue_comment", event, env=_CACHED), "implement")


def review_once(root: Path) -> ActionRun:
    """A `pull_request` `opened` event: the reviewer's verdict posted as one review."""
    with ActionHarness(root, script=_pipeline_script(root / "workspace")) as harness:
        _number, event = harness.open_pull("feature", {"greeter/farewell.py": FAREWELL})
        return _checked(harness.run("pull_request", event, env=_CACHED), "review")


def request_figures(
    run_name: str, result: ActionRun, stages: int, requests_target: Target | None = None
) -> list[Figure]:
    """Requests of one run by endpoint; progress-comment edits against one per stage, the
    other requests against `requests_target`."""
    bench = f"GitHub requests: {run_name}"
    counts = Counter(endpoint(r) for r in result.github_requests)
    edits = sum(1 for r in result.github_requests if _COMMENT_EDIT.match(f"{r.method} {r.path}"))
    figures = [
        Figure(
            benchmark=bench,
            name="requests other than progress-comment edits",
            value=sum(counts.values()) - edits,
            unit="requests",
            target=requests_target,
        ),
        Figure(
            benchmark=bench,
            name=f"progress-comment edits ({stages} stage{'' if stages == 1 else 's'})",
            value=edits,
            unit="edits",
            target=Target(limit=EDITS_PER_STAGE * stages),
        ),
    ]
    figures += [
        Figure(benchmark=bench, name=f"`{name}`", value=count, unit="requests")
        for name, count in sorted(counts.items())
    ]
    return figures


def action_implement_and_review(root: Path) -> list[Figure]:
    """One implement run (developer + reviewer) and one pull request review."""
    warm_cache()
    implement = implement_once(root / "implement")
    review = review_once(root / "review")
    return [
        *request_figures("implement run", implement, stages=2),
        *request_figures("PR review run", review, stages=1),
    ]
