"""The requests the adapter over PyGithub makes for the repository's CI, and the local
GitHub's answers to them, checked against GitHub's REST API description
(`@octokit/openapi`): and the check itself refuses what GitHub's description refuses.

Where the description was not fetched these tests skip saying how to fetch it; `.ci/run`
fetches it and sets `AMELIA_GITHUB_OPENAPI`, so there a missing description fails them.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.github.client import GitHubClient
from amelia.github.options import RetryPolicy
from amelia.testing.github import FakeGitHubServer, GitHubState, RecordedRequest, RunScript
from tests.git_helpers import git, init_repo
from tests.github_openapi import CI_PATHS, Description, required_description

REPO = "octo/app"
BRANCH = "amelia/issue-1"
POLICY = RetryPolicy(max_attempts=2, max_total_wait=1, backoff_base=0.01)
CI = "name: CI\non:\n  pull_request:\n  workflow_dispatch:\njobs: {}\n"
LOG = "FAILED tests/test_farewell.py::test_bye\n"


@pytest.fixture(scope="module")
def description() -> Description:
    return required_description()


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    work = init_repo(tmp_path / "work", {".github/workflows/ci.yml": CI})
    git(work, "checkout", "-qb", BRANCH)
    (work / "app.py").write_text("print('hi')\n", encoding="utf-8")
    git(work, "add", "--all")
    git(work, "-c", "user.name=A", "-c", "user.email=a@b.invalid", "commit", "-qm", "change")
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    return bare


@pytest.fixture
def server(origin: Path) -> Iterator[FakeGitHubServer]:
    state = GitHubState()
    state.add_repo(REPO, bare_path=origin)
    with FakeGitHubServer(state=state) as started:
        yield started


def _request(method: str, path: str, body: object = None, **query: str) -> RecordedRequest:
    return RecordedRequest(method, path, {k: [v] for k, v in query.items()}, {}, body)


async def test_every_ci_request_and_answer_is_as_github_describes_it(
    description: Description, server: FakeGitHubServer, origin: Path
) -> None:
    head = git(origin, "rev-parse", BRANCH).strip()
    server.script_runs(REPO, "ci.yml", RunScript(conclusion="failure", log=LOG, reads=1))
    client = GitHubClient("t", REPO, base_url=server.url, policy=POLICY, throttle=False)
    try:
        (workflow,) = await client.list_workflows()
        await client.dispatch_workflow(workflow.id, BRANCH)
        first = await client.list_workflow_runs(head, event="workflow_dispatch")
        again = await client.list_workflow_runs(head, event="workflow_dispatch", etag=first.etag)
        (run,) = (await client.list_workflow_runs(head)).items or ()
        assert again.items is not None and run.completed and run.conclusion == "failure"
        (job,) = await client.list_jobs(run.id)
        assert LOG in (await client.get_job_log(job.id) or "")
        suites = await client.list_check_suites(head)
        checks = await client.list_check_runs(head)
        assert suites.items and checks
        unchanged = await client.list_check_suites(head, etag=suites.etag)
        assert unchanged.items is None  # 304 Not Modified
    finally:
        client.close()

    checked = description.check(server.requests, server.answers, bodies=CI_PATHS)
    assert checked.problems == []
    assert {
        "GET /repos/{owner}/{repo}/actions/workflows",
        "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
        "GET /repos/{owner}/{repo}/actions/runs",
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
        "GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs",
        "GET /repos/{owner}/{repo}/commits/{ref}/check-suites",
        "GET /repos/{owner}/{repo}/commits/{ref}/check-runs",
    } <= checked.operations
    statuses = {(a.request.method, a.status) for a in server.answers}
    assert {("POST", 204), ("GET", 302), ("GET", 304)} <= statuses


@pytest.mark.parametrize(
    ("request_", "problem"),
    [
        (_request("GET", "/repos/o/r/actions/workflow-runs"), "no operation"),
        (_request("DELETE", "/repos/o/r/actions/workflows"), "no operation"),
        (_request("GET", "/repos/o/r/actions/runs/abc/jobs"), "run_id='abc'"),
        (_request("GET", "/repos/o/r/actions/runs", head=BRANCH), "head is not described"),
        (_request("GET", "/repos/o/r/actions/runs", status="done"), "status='done'"),
        (_request("GET", "/repos/o/r/actions/runs", per_page="many"), "per_page='many'"),
        (_request("POST", "/repos/o/r/actions/workflows/1/dispatches", {}), "'ref' is a required"),
        (
            _request("POST", "/repos/o/r/actions/workflows/1/dispatches", {"ref": 1}),
            "1 is not of type 'string'",
        ),
        (_request("POST", "/repos/o/r/actions/workflows/1/dispatches"), "body is missing"),
        (_request("GET", "/repos/o/r/actions/workflows", {"ref": "x"}), "none is described"),
        (_request("POST", "/repos/o/r/pulls", {"title": "t", "base": "main"}), "'head'"),
    ],
)
def test_the_check_refuses_what_github_describes_as_invalid(
    description: Description, request_: RecordedRequest, problem: str
) -> None:
    _operation, problems = description.check_request(request_)
    assert problems and problem in problems[0], problems


def test_the_check_takes_what_github_describes(description: Description) -> None:
    valid = [
        _request("GET", "/repos/o/r/actions/runs", head_sha="a" * 40, per_page="100"),
        _request("GET", "/api/v3/repos/o/r/actions/runs", event="workflow_dispatch"),
        _request("POST", "/repos/o/r/actions/workflows/ci.yml/dispatches", {"ref": BRANCH}),
        _request("GET", "/repos/o/r/contents/docs/plans/plan.md", ref=BRANCH),
        _request("GET", "/repos/o/r/commits/" + "a" * 40 + "/check-suites"),
    ]
    assert [description.check_request(r)[1] for r in valid] == [[]] * len(valid)
