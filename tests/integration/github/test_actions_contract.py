"""The GitHub port's Actions and checks reads and its dispatch, held by both GitHubs the
tests use (the adapter over PyGithub against the local server, and the in-memory GitHub):
workflows from the repository's files, dispatches GitHub accepts or refuses, runs filtered
by commit and event that complete with scripted conclusions, jobs with steps, job logs
(through GitHub's redirect over HTTP), check suites and runs, and conditional reads."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from amelia.errors import GitHubAuthError, GitHubNotFoundError, GitHubValidationError
from amelia.github.client import GitHubClient
from amelia.github.options import RetryPolicy
from amelia.testing.github import FakeGitHubServer, GitHubState, InMemoryGitHub, RunScript
from tests.git_helpers import git, init_repo

REPO = "octo/app"
BRANCH = "amelia/issue-1"
POLICY = RetryPolicy(max_attempts=3, max_total_wait=5, backoff_base=0.01)
CI = """name: CI
on:
  push:
    branches: [main]
  pull_request:
  workflow_dispatch:
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - run: pytest
"""
LINT = "name: Lint\non: [pull_request]\njobs:\n  lint:\n    runs-on: ubuntu-latest\n"
LOG = "2024-05-01T10:00:00.0000000Z collected 3 items\nFAILED tests/test_farewell.py::test_bye\n"


@dataclass
class Port:
    kind: str
    state: GitHubState
    github: GitHubClient | InMemoryGitHub
    server: FakeGitHubServer | None


@pytest.fixture(scope="module")
def origin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("origin")
    work = init_repo(
        root / "work", {".github/workflows/ci.yml": CI, ".github/workflows/lint.yml": LINT}
    )
    git(work, "checkout", "-qb", BRANCH)
    (work / "app.py").write_text("print('hi')\n", encoding="utf-8")
    git(work, "add", "--all")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qm", "change")
    bare = root / "origin.git"
    git(root, "clone", "-q", "--bare", str(work), str(bare))
    return bare


@pytest.fixture(params=["adapter over HTTP", "in memory"])
def port(request: pytest.FixtureRequest, origin: Path) -> Iterator[Port]:
    state = GitHubState()
    state.add_repo(REPO, bare_path=origin)
    if request.param == "in memory":
        yield Port(request.param, state, InMemoryGitHub(state, REPO, policy=POLICY), None)
        return
    with FakeGitHubServer(state=state) as server:
        client = GitHubClient("t", REPO, base_url=server.url, policy=POLICY, throttle=False)
        yield Port(request.param, state, client, server)
        client.close()


def _head(origin: Path) -> str:
    return git(origin, "rev-parse", BRANCH).strip()


async def test_workflows_are_the_files_of_the_default_branch(port: Port) -> None:
    found = await port.github.list_workflows()
    assert [(w.name, w.path, w.state) for w in found] == [
        ("CI", ".github/workflows/ci.yml", "active"),
        ("Lint", ".github/workflows/lint.yml", "active"),
    ]
    assert found[0].html_url.endswith("/octo/app/blob/main/.github/workflows/ci.yml")


async def test_a_dispatched_run_fails_as_scripted_with_its_step_and_log(
    port: Port, origin: Path
) -> None:
    port.state.script_runs(REPO, "ci.yml", RunScript(conclusion="failure", log=LOG, reads=1))
    (ci, _lint) = await port.github.list_workflows()
    await port.github.dispatch_workflow(ci.id, BRANCH)
    head = _head(origin)

    first = await port.github.list_workflow_runs(head, event="workflow_dispatch")
    assert first.items is not None
    (run,) = first.items
    assert (run.name, run.workflow_id, run.head_branch, run.event) == (
        "CI",
        ci.id,
        BRANCH,
        "workflow_dispatch",
    )
    assert (run.status, run.conclusion) == ("in_progress", None)
    assert run.html_url.endswith(f"/octo/app/actions/runs/{run.id}")

    second = await port.github.list_workflow_runs(head)
    assert second.items is not None
    assert (second.items[0].status, second.items[0].conclusion) == ("completed", "failure")
    (job,) = await port.github.list_jobs(run.id)
    assert (job.name, job.conclusion, job.run_id) == ("test", "failure", run.id)
    failed = [s.name for s in job.steps if s.conclusion == "failure"]
    assert failed == ["Run tests"]
    assert await port.github.get_job_log(job.id) == LOG
    assert await port.github.get_job_log(999_999) is None
    if port.server is not None:  # the log came from where GitHub's 302 pointed
        paths = [r.path for r in port.server.requests]
        assert f"/repos/octo/app/actions/jobs/{job.id}/logs" in paths
        assert f"/_job-logs/octo/app/{job.id}" in paths
    assert (await port.github.list_workflow_runs(head, event="push")).items == ()


async def test_github_refuses_a_dispatch_the_workflow_does_not_accept(port: Port) -> None:
    (_ci, lint) = await port.github.list_workflows()
    with pytest.raises(GitHubValidationError, match="does not have 'workflow_dispatch' trigger"):
        await port.github.dispatch_workflow(lint.id, BRANCH)
    with pytest.raises(GitHubValidationError, match="No ref found for: no-such-branch"):
        await port.github.dispatch_workflow(_ci.id, "no-such-branch")
    with pytest.raises(GitHubNotFoundError):
        await port.github.dispatch_workflow(1, BRANCH)


async def test_the_job_token_needs_the_actions_permission(port: Port) -> None:
    port.state.actions_permission = "read"
    (ci, _lint) = await port.github.list_workflows()
    with pytest.raises(GitHubAuthError, match="403 Resource not accessible by integration"):
        await port.github.dispatch_workflow(ci.id, BRANCH)
    port.state.actions_permission = "none"
    with pytest.raises(GitHubAuthError, match="403"):
        await port.github.list_workflows()


async def test_a_conditional_read_is_empty_until_something_changes(
    port: Port, origin: Path
) -> None:
    head = _head(origin)
    port.state.script_runs(REPO, "ci.yml", RunScript(reads=None))
    (ci, _lint) = await port.github.list_workflows()
    await port.github.dispatch_workflow(ci.id, BRANCH)
    first = await port.github.list_workflow_runs(head)
    assert first.modified and first.etag
    again = await port.github.list_workflow_runs(head, etag=first.etag)
    assert not again.modified and again.items is None and again.etag == first.etag
    await port.github.dispatch_workflow(ci.id, BRANCH)  # a second run: the list changed
    changed = await port.github.list_workflow_runs(head, etag=first.etag)
    assert changed.items is not None and len(changed.items) == 2
    if port.server is not None:
        conditional = [r for r in port.server.requests if r.headers.get("if-none-match")]
        assert len(conditional) == 2


async def test_a_push_with_a_personal_token_starts_check_suites(port: Port, origin: Path) -> None:
    head = _head(origin)
    port.state.token_user.login = "octo-maintainer"
    port.state.script_runs(REPO, "ci.yml", RunScript(conclusion="success", reads=1))
    started = port.state.branch_pushed(REPO, BRANCH, head)
    assert started == []  # CI runs on pushes to main; Lint on pull requests only
    port.state.add_pull(REPO, head=BRANCH, head_sha=head)
    started = port.state.branch_pushed(REPO, BRANCH, head)
    assert sorted(run.name for run in started) == ["CI", "Lint"]

    suites = await port.github.list_check_suites(head)
    assert suites.items is not None
    assert {(s.app, s.status, s.check_runs) for s in suites.items} == {
        ("github-actions", "in_progress", 1)
    }
    done = await port.github.list_check_suites(head)
    assert done.items is not None
    assert {(s.status, s.conclusion) for s in done.items} == {("completed", "success")}
    runs = await port.github.list_check_runs(head)
    assert sorted((r.name, r.conclusion) for r in runs) == [("test", "success")] * 2


async def test_pushes_with_the_job_token_start_nothing(port: Port, origin: Path) -> None:
    port.state.add_pull(REPO, head=BRANCH, head_sha=_head(origin))
    assert port.state.branch_pushed(REPO, BRANCH, _head(origin)) == []
    suites = await port.github.list_check_suites(_head(origin))
    assert suites.items == ()


async def test_another_apps_check_suite_is_listed_beside_the_workflows_own(
    port: Port, origin: Path
) -> None:
    head = _head(origin)
    port.state.token_user.login = "octo-maintainer"
    port.state.install_app(REPO, "codecov", "codecov/patch")
    port.state.add_pull(REPO, head=BRANCH, head_sha=head)
    port.state.branch_pushed(REPO, BRANCH, head)

    suites = await port.github.list_check_suites(head)
    assert suites.items is not None
    (other,) = [s for s in suites.items if s.app == "codecov"]
    assert (other.head_sha, other.status, other.conclusion) == (head, "completed", "success")
    runs = await port.github.list_check_runs(head)
    (run,) = [r for r in runs if r.app == "codecov"]
    assert (run.name, run.conclusion, run.check_suite_id) == ("codecov/patch", "success", other.id)
    assert run.html_url == f"https://github.com/octo/app/runs/{other.id + 1}"
