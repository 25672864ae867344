"""Scan scale: requests and time to list 100, 1,000 and 10,000 labelled issues.

The client's labelled-issue listing runs against the local GitHub server, which counts the
requests. The local server builds every matching issue for each page it serves, so the time
includes its own work, which grows with issues × pages; the request count is the figure
that carries over to GitHub.
"""

from __future__ import annotations

import math
import time

from amelia.github.client import GitHubClient
from amelia.testing.github_server import FakeGitHubServer
from benchmarks.report import Figure, Target

REPO = "octo/scan"
LABEL = "amelia"
PER_PAGE = 100
UNLABELLED_SHARE = 10
"""One unlabelled issue per this many labelled ones, so the listing has to filter."""


def scan_once(issues: int) -> tuple[int, int, float, float]:
    """(issues found, requests, wall seconds, client CPU seconds) for one scan.

    The client's CPU time is this thread's own (the server answers on other threads)."""
    with FakeGitHubServer() as server:
        server.add_repo(REPO)
        for number in range(issues + issues // UNLABELLED_SHARE):
            labels = [] if number % (UNLABELLED_SHARE + 1) == UNLABELLED_SHARE else [LABEL]
            server.add_issue(REPO, title=f"Issue {number}", body="Scan me.", labels=labels)
        client = GitHubClient(
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
