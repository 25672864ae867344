"""CI wait: GitHub requests per minute of waiting for the repository's CI.

amelia dispatches the CI workflow on its branch and waits, against the local GitHub over
HTTP with the real client, for runs that finish after 5, 30 and 60 minutes of simulated
time (the wait's clock advances only when it pauses, so the benchmark takes seconds). The
figures that carry over to GitHub: requests per minute of waiting, and how many of them
GitHub answers `304 Not Modified` (conditional requests, which cost no rate limit).
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from amelia.ci import CiConfig, run_ci
from amelia.git import run_git
from amelia.github.client import GitHubClient
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts
from amelia.redaction import Redactor
from amelia.testing.github import FakeGitHubServer, GitHubState, RunScript
from benchmarks.report import Figure, Target

REPO = "octo/app"
BRANCH = "amelia/issue-1"
CI = "name: CI\non: [push, pull_request, workflow_dispatch]\n"
REQUESTS_PER_MINUTE_TARGET = 3.0
"""At most this many requests per minute of a 30-minute wait."""


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds


def _origin(root: Path) -> Path:
    work = root / "work"
    (work / ".github" / "workflows").mkdir(parents=True)
    (work / ".github" / "workflows" / "ci.yml").write_text(CI, encoding="utf-8")
    run_git(["init", "-q", "-b", "main"], work)
    run_git(["add", "--all"], work)
    identity = ["-c", "user.name=A", "-c", "user.email=a@b.invalid"]
    run_git([*identity, "commit", "-qm", "init"], work)
    run_git(["branch", BRANCH], work)
    bare = root / "origin.git"
    run_git(["clone", "-q", "--bare", str(work), str(bare)], root)
    return bare


def wait_costs(minutes: float) -> tuple[int, int, float]:
    """(requests, 304 answers, simulated minutes waited) for CI that takes `minutes`."""
    with tempfile.TemporaryDirectory(prefix="amelia-ci-wait-") as scratch:
        bare = _origin(Path(scratch))
        head = run_git(["--git-dir", str(bare), "rev-parse", BRANCH], None).strip()
        state = GitHubState()
        state.add_repo(REPO, bare_path=bare)
        clock = _Clock()
        with FakeGitHubServer(state=state) as server:
            # The run finishes once the wait has looked this often: ~`minutes` of pauses.
            pauses, looks, elapsed = 10.0, 0, 0.0
            while elapsed < minutes * 60:
                elapsed += pauses
                pauses = min(pauses * 1.5, 60.0)
                looks += 1
            state.script_runs(REPO, "ci.yml", RunScript(reads=looks))
            client = GitHubClient("t", REPO, base_url=server.url, throttle=False)
            before = len(server.requests)
            report = asyncio.run(
                run_ci(
                    client,
                    branch=BRANCH,
                    head_sha=head,
                    config=CiConfig(timeout_minutes=minutes + 5),
                    facts=TokenFacts(login=JOB_TOKEN_LOGIN),
                    redactor=Redactor(),
                    sleep=clock.sleep,
                    clock=clock,
                )
            )
            client.close()
            made = server.requests[before:]
        assert report is not None and report.passed, report
        not_modified = sum(
            1 for r in made if r.path.endswith("/actions/runs") and r.headers.get("if-none-match")
        )
        return len(made), not_modified, clock.now / 60


def ci_wait(durations: tuple[float, ...] = (5.0, 30.0, 60.0)) -> list[Figure]:
    figures: list[Figure] = []
    for minutes in durations:
        requests, conditional, waited = wait_costs(minutes)
        name = f"CI wait: runs finish after {minutes:g} min"
        per_minute = requests / waited if waited else float(requests)
        target = Target(limit=REQUESTS_PER_MINUTE_TARGET) if minutes >= 30 else None
        figures += [
            Figure(benchmark="ci-wait", name=name, value=requests, unit="requests"),
            Figure(
                benchmark="ci-wait",
                name=name,
                value=round(per_minute, 2),
                unit="requests per minute of waiting",
                target=target,
            ),
            Figure(
                benchmark="ci-wait",
                name=name,
                value=conditional,
                unit="conditional looks (If-None-Match: 304 while unchanged)",
            ),
        ]
    return figures
