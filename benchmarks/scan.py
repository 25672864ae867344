"""Scan scale: GitHub requests and time to list 100, 1,000 and 10,000 labelled issues with
the client, and a whole scheduled scan over 100, 1,000 and 3,000 with the installed `amelia`
console script (`amelia action` on a `schedule` event, through the Action harness).

Both run against the local GitHub server, which counts the requests. For each page it
serves, the local server filters and sorts every issue of the repository and builds the
JSON of that page's 100, so the time includes its own work; the request count is the
figure that carries over to GitHub.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from amelia.github._pygithub import PyGithubCalls
from amelia.testing.action_harness import ActionHarness, ActionRun
from amelia.testing.github_server import FakeGitHubServer
from benchmarks.bytecode import CACHE_DIR, warm_cache
from benchmarks.report import Figure, Target
from benchmarks.startup import amelia_command

REPO = "octo/scan"
LABEL = "amelia"
PER_PAGE = 100
UNLABELLED_SHARE = 10
"""One unlabelled issue per this many labelled ones, so the listing has to filter."""
SCHEDULE_EVENT: dict[str, Any] = {"schedule": "17 3 * * *", "repository": {"full_name": "octo/app"}}
SCAN_SETUP_REQUESTS = 5
"""Requests a scan run may make besides one listing per page (its configuration, …)."""
DEFAULT_SCAN_LIMIT = 20
"""What a scan hands out at most when nothing configures it (`scan_limit` in action.yml)."""


def scan_once(issues: int) -> tuple[int, int, float, float]:
    """(issues found, requests, wall seconds, client CPU seconds) for one scan.

    The client's CPU time is this thread's own (the server answers on other threads): the
    adapter's blocking half is measured directly, without the worker thread the async
    `GitHubClient` hands it to."""
    with FakeGitHubServer() as server:
        server.add_repo(REPO)
        for number in range(issues + issues // UNLABELLED_SHARE):
            labels = [] if number % (UNLABELLED_SHARE + 1) == UNLABELLED_SHARE else [LABEL]
            server.add_issue(REPO, title=f"Issue {number}", body="Scan me.", labels=labels)
        client = PyGithubCalls(
            token="benchmark-token",
            repo=REPO,
            base_url=server.url,
            per_page=PER_PAGE,
            throttle=False,
        )
        before = len(server.requests)
        started, cpu_started = time.perf_counter(), time.thread_time()
        found = client.list_labelled_issues(LABEL)
        elapsed, cpu = time.perf_counter() - started, time.thread_time() - cpu_started
        client.close()
        return len(found), len(server.requests) - before, elapsed, cpu


def scan_scale(sizes: tuple[int, ...]) -> list[Figure]:
    figures: list[Figure] = []
    for size in sizes:
        found, requests, elapsed, cpu = scan_once(size)
        pages = max(1, math.ceil(size / PER_PAGE))
        bench = f"scan: {size:,} labelled issues"
        figures += [
            Figure(benchmark=bench, name="issues found", value=found, unit="issues"),
            Figure(
                benchmark=bench,
                name=f"GitHub requests ({pages} pages of {PER_PAGE})",
                value=requests,
                unit="requests",
                # Growing with pages: one request per page, plus at most two set-up calls.
                target=Target(limit=pages + 2),
            ),
            Figure(benchmark=bench, name="wall time", value=elapsed, unit="s", note="local server"),
            Figure(benchmark=bench, name="amelia client CPU time", value=cpu, unit="s"),
        ]
    return figures


def scan_mode_once(root: Path, issues: int) -> tuple[ActionRun, float]:
    """The installed `amelia action` on a `schedule` event over `issues` labelled issues
    without a plan: (the run, its wall seconds)."""
    with ActionHarness(root) as harness:
        for index in range(issues):
            harness.add_issue(f"Task {index}", labels=[LABEL])
        started = time.monotonic()
        result = harness.run(
            "schedule",
            SCHEDULE_EVENT,
            env={"PYTHONPYCACHEPREFIX": str(CACHE_DIR)},
            program=amelia_command(),
        )
        elapsed = time.monotonic() - started
    if result.exit_code != 0 or result.outputs.get("conclusion") != "success":
        raise RuntimeError(f"scan run exited {result.exit_code}: {result.stderr[-600:]}")
    return result, elapsed


def action_scan(root: Path, sizes: tuple[int, ...]) -> list[Figure]:
    warm_cache()
    figures: list[Figure] = []
    for size in sizes:
        result, elapsed = scan_mode_once(root / f"scan-{size}", size)
        pages = max(1, math.ceil(size / PER_PAGE))
        listing = [r for r in result.github_requests if r.path.endswith("/issues")]
        handed = len(json.loads(result.outputs["issues"]))
        bench = f"scan mode: {size:,} labelled issues"
        figures += [
            Figure(
                benchmark=bench,
                name=f"GitHub requests ({pages} pages of {PER_PAGE})",
                value=len(result.github_requests),
                unit="requests",
                target=Target(limit=pages + SCAN_SETUP_REQUESTS),
            ),
            Figure(
                benchmark=bench,
                name="issue-list requests",
                value=len(listing),
                unit="requests",
                target=Target(limit=pages),
            ),
            Figure(
                benchmark=bench,
                name=f"issues handed out (`scan_limit` {DEFAULT_SCAN_LIMIT})",
                value=handed,
                unit="issues",
                target=Target(limit=min(size, DEFAULT_SCAN_LIMIT)),
            ),
            Figure(
                benchmark=bench,
                name="`amelia action` wall time (installed console script)",
                value=elapsed,
                unit="s",
                note="with the local server",
            ),
        ]
    return figures
