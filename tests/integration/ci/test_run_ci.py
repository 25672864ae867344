"""Running the repository's CI on a pushed commit and waiting for it, against the local
GitHub (in memory, and over HTTP for the request counts): dispatched with the job's token,
waited for as check suites with another token, bounded by the timeout, and what happens
without the permission or without a workflow that accepts a dispatch."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.ci import CiConfig, run_ci
from amelia.ci.run import ADD_DISPATCH_NOTE
from amelia.core.ci import CiReport
from amelia.github.client import GitHubClient
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts
from amelia.redaction import Redactor
from amelia.testing.github import FakeGitHubServer, GitHubState, InMemoryGitHub, RunScript
from tests.git_helpers import git, init_repo

REPO = "octo/app"
BRANCH = "amelia/issue-1"
JOB_TOKEN = TokenFacts(login=JOB_TOKEN_LOGIN)
PAT = TokenFacts(scopes=("repo", "workflow"))
CI = "name: CI\non:\n  pull_request:\n  push:\n    branches: [main]\n  workflow_dispatch:\n"
NO_DISPATCH = "name: CI\non: [push, pull_request]\n"
DOCS = "name: Docs\non:\n  schedule:\n    - cron: '0 0 * * *'\n  workflow_dispatch:\n"
SECRET = "ghp_" + "LeakedInTheCiLog0123456789abcdefABCD"
FAILING_LOG = (
    "2024-05-01T10:00:00.1234567Z ##[group]Run pytest\n"
    + "".join(f"2024-05-01T10:00:01.0000000Z line {n}\n" for n in range(100))
    + f"2024-05-01T10:00:02.0000000Z token={SECRET}\n"
    "2024-05-01T10:00:03.0000000Z FAILED tests/test_farewell.py::test_bye - AssertionError\n"
    "2024-05-01T10:00:04.0000000Z ##[error]Process completed with exit code 1.\n"
)


class Clock:
    """Time that passes only when the wait sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def origin(root: Path, workflows: dict[str, str]) -> tuple[Path, str]:
    work = init_repo(root / "work", {f".github/workflows/{n}": t for n, t in workflows.items()})
    git(work, "checkout", "-qb", BRANCH)
    (work / "farewell.py").write_text("x = 1\n", encoding="utf-8")
    git(work, "add", "--all")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qm", "work")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    return bare, git(bare, "rev-parse", BRANCH).strip()


@pytest.fixture
def ci_repo(tmp_path: Path) -> Iterator[tuple[GitHubState, str]]:
    bare, head = origin(tmp_path, {"ci.yml": CI, "docs.yml": DOCS})
    state = GitHubState()
    state.add_repo(REPO, bare_path=bare)
    yield state, head


async def _run(
    github: InMemoryGitHub | GitHubClient,
    head: str,
    facts: TokenFacts,
    clock: Clock,
    config: CiConfig | None = None,
) -> CiReport | None:
    return await run_ci(
        github,
        branch=BRANCH,
        head_sha=head,
        config=config or CiConfig(timeout_minutes=30),
        facts=facts,
        redactor=Redactor(),
        sleep=clock.sleep,
        clock=clock,
    )


async def test_the_job_token_dispatches_ci_and_reads_where_it_failed(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    state.script_runs(REPO, "ci.yml", RunScript(conclusion="failure", log=FAILING_LOG, reads=3))
    clock = Clock()
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, clock)

    assert report is not None and report.trigger == "dispatch"
    assert state.actions(REPO).dispatches == [(".github/workflows/ci.yml", BRANCH)]  # not docs
    (run,) = report.runs
    assert (run.workflow, run.label, report.outcome) == ("CI", "failure", "failed")
    assert report.failed and report.blocks_approval
    (failure,) = run.failures
    assert (failure.job, failure.step) == ("test", "Run tests")
    tail = failure.log_tail.splitlines()
    assert tail[-2] == "FAILED tests/test_farewell.py::test_bye - AssertionError"
    assert len(tail) == 40 and "2024-05-01T" not in failure.log_tail
    assert SECRET not in failure.log_tail and "token=***" in failure.log_tail
    assert clock.sleeps == [10.0, 15.0, 22.5]  # three unfinished looks, a growing pause


async def test_a_later_round_on_a_new_commit_dispatches_again_and_passes(
    ci_repo: tuple[GitHubState, str], tmp_path: Path
) -> None:
    state, head = ci_repo
    state.script_runs(REPO, "ci.yml", RunScript(conclusion="failure"), RunScript(reads=0))
    github = InMemoryGitHub(state, REPO)
    first = await _run(github, head, JOB_TOKEN, Clock())
    second = await _run(github, head, JOB_TOKEN, Clock())  # the same commit: a new run only
    assert first is not None and first.failed
    assert second is not None and second.passed and not second.blocks_approval
    assert second.runs[0].url != first.runs[0].url


async def test_ci_that_never_finishes_is_reported_still_running_at_the_timeout(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    state.script_runs(REPO, "ci.yml", RunScript(reads=None))
    clock = Clock()
    config = CiConfig(timeout_minutes=5)
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, clock, config)

    assert report is not None and report.outcome == "still running"
    assert not report.finished and report.blocks_approval and not report.failed
    assert report.runs[0].label == "still running" and report.runs[0].url
    assert clock.now == 300.0 and max(clock.sleeps) == 60.0


async def test_another_token_dispatches_nothing_and_waits_for_check_suites(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    state.token_user.login = "octo-maintainer"
    state.add_pull(REPO, head=BRANCH, head_sha=head)
    state.script_runs(REPO, "ci.yml", RunScript(conclusion="failure", reads=2))
    state.branch_pushed(REPO, BRANCH, head)  # the push itself starts CI
    clock = Clock()
    report = await _run(InMemoryGitHub(state, REPO), head, PAT, clock)

    assert state.actions(REPO).dispatches == []
    assert report is not None and report.trigger == "push"
    assert [(r.workflow, r.label) for r in report.runs] == [("CI", "failure")]
    assert report.runs[0].failures[0].step == "Run tests"


async def test_without_actions_write_one_note_names_the_permission(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    state.actions_permission = "read"
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock())
    assert report is not None and not report.ran and not report.blocks_approval
    assert report.note is not None and "`actions: write`" in report.note
    state.actions_permission = "none"
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock())
    assert report is not None and report.note is not None and "`actions: read`" in report.note


async def test_workflows_without_a_dispatch_trigger_get_the_line_saying_what_to_add(
    tmp_path: Path,
) -> None:
    bare, head = origin(tmp_path, {"ci.yml": NO_DISPATCH})
    state = GitHubState()
    state.add_repo(REPO, bare_path=bare)
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock())
    assert report is not None and not report.ran
    assert report.note == ADD_DISPATCH_NOTE.format(names="`ci.yml`")
    assert "`workflow_dispatch:`" in report.note


async def test_a_repository_without_ci_and_a_configuration_that_turns_it_off_wait_for_nothing(
    tmp_path: Path, ci_repo: tuple[GitHubState, str]
) -> None:
    bare, head = origin(tmp_path / "plain", {"docs.yml": DOCS})
    plain = GitHubState()
    plain.add_repo(REPO, bare_path=bare)
    assert await _run(InMemoryGitHub(plain, REPO), head, JOB_TOKEN, Clock()) is None
    state, head = ci_repo
    off = CiConfig(enabled=False)
    assert await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock(), off) is None
    assert state.actions(REPO).dispatches == []


async def test_configured_workflows_are_the_ones_dispatched(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    config = CiConfig(workflows=("Docs",), timeout_minutes=1)
    report = await _run(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock(), config)
    assert state.actions(REPO).dispatches == [(".github/workflows/docs.yml", BRANCH)]
    assert report is not None and [r.workflow for r in report.runs] == ["Docs"]


async def test_each_look_while_nothing_changes_is_a_not_modified_answer(
    ci_repo: tuple[GitHubState, str],
) -> None:
    state, head = ci_repo
    state.script_runs(REPO, "ci.yml", RunScript(reads=None))
    clock = Clock()
    with FakeGitHubServer(state=state) as server:
        client = GitHubClient("t", REPO, base_url=server.url, throttle=False)
        report = await _run(client, head, JOB_TOKEN, clock, CiConfig(timeout_minutes=10))
        client.close()
        looks = server.requests_to("GET", r"/repos/octo/app/actions/runs")
    assert report is not None and report.outcome == "still running"
    conditional = [r for r in looks if r.headers.get("if-none-match")]
    assert len(looks) - len(conditional) == 2  # the runs before the dispatch, the first look
    assert len(looks) == len(clock.sleeps) + 2
