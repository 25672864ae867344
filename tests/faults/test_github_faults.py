"""The GitHub fault matrix for `/amelia plan`: every call site the run makes × every fault.

Transient faults (one bad answer) must be retried and the run must succeed as if nothing
happened. Persistent faults must end the run with exit 1, the reason in the job summary and
on the progress comment whenever GitHub still takes comments. Rows are listed with their
expected outcome in docs/reliability.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from amelia.testing.github_server import SECONDARY_RATE_LIMIT_MESSAGE, Fault
from tests.faults.conftest import STALL_SECONDS, EngineBench, EngineRun

pytestmark = [pytest.mark.timeout(120)]

REPO = r"/repos/octo/app"


@dataclass(frozen=True)
class Site:
    method: str
    path: str


SITES = {
    "get_repository": Site("GET", REPO),
    "read_issue": Site("GET", REPO + r"/issues/1"),
    "permission_check": Site("GET", REPO + r"/collaborators/maintainer/permission"),
    "find_comment": Site("GET", REPO + r"/issues/1/comments"),
    "create_comment": Site("POST", REPO + r"/issues/1/comments"),
    "edit_comment": Site("PATCH", REPO + r"/issues/comments/\d+"),
}

RETRY_AFTER = "403-secondary-retry-after"
"""The transient fault whose retry waits as long as GitHub asks."""
TRANSIENT = {
    "502": Fault(status=502, message="Bad Gateway"),
    "503": Fault(status=503, message="Service Unavailable"),
    "reset": Fault(kind="reset"),
    "timeout": Fault(kind="stall", stall_seconds=STALL_SECONDS),
    RETRY_AFTER: Fault(
        status=403, headers={"Retry-After": "1"}, message=SECONDARY_RATE_LIMIT_MESSAGE
    ),
    "429": Fault(status=429, message="Too Many Requests"),
}

PERSISTENT = 100
"""More bad answers than every retry of every call at one site can use up."""


def _assert_succeeded(bench: EngineBench, run: EngineRun) -> None:
    assert run.exit_code == 0, run.stdout
    assert run.outputs["conclusion"] == "success"
    assert "::error::" not in run.stdout
    branch = run.outputs["branch"]
    assert run.outputs["plan_path"] in bench.harness.origin_files(branch)
    (progress,) = bench.progress_comments()
    assert "**Done**" in progress
    assert "## amelia `plan`: success" in run.summary


def _assert_failed(run: EngineRun, reason: str) -> None:
    assert run.exit_code == 1, run.stdout
    assert run.outputs["conclusion"] == "failure"
    assert "::error::amelia" in run.stdout and reason in run.stdout
    assert "failure" in run.summary and reason in run.summary
    assert "Traceback" not in run.stdout


@pytest.mark.parametrize("fault", TRANSIENT, ids=list(TRANSIENT))
@pytest.mark.parametrize("site", SITES, ids=list(SITES))
def test_a_transient_fault_is_retried_and_the_run_succeeds(
    bench: EngineBench, site: str, fault: str
) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    target = SITES[site]
    bench.github.inject(target.method, target.path, TRANSIENT[fault])
    waits = bench.record_github_waits() if fault == RETRY_AFTER else None

    run = bench.run_plan()

    _assert_succeeded(bench, run)
    # The faulted request was made again: the retry, not luck, got the run through.
    assert len(run.requests_to(target.method, target.path)) >= 2
    if waits is not None:
        assert 1.0 in waits  # the retry waited the second GitHub asked for


# Persistent 5xx: clear failure everywhere. Where the issue cannot take comments any more
# the job summary and the exit code still say so.
PERSISTENT_REASONS = {
    "get_repository": "get repository octo/app failed after 3 attempt(s): 502",
    "read_issue": "get issue #1 failed after 3 attempt(s): 502",
    "permission_check": "could not check the permission of @maintainer",
    "find_comment": "the progress comment could not be posted",
    "create_comment": "the progress comment could not be posted",
    "edit_comment": "the progress comment could not be posted",
}


@pytest.mark.parametrize("site", SITES, ids=[f"{s}-502-persistent" for s in SITES])
def test_a_persistent_server_error_fails_the_run_clearly(bench: EngineBench, site: str) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    target = SITES[site]
    bench.github.inject(target.method, target.path, *[Fault(status=502)] * PERSISTENT)

    run = bench.run_plan()

    _assert_failed(run, PERSISTENT_REASONS[site])
    # Bounded: three attempts per call, never a retry storm.
    assert len(run.requests_to(target.method, target.path)) <= 9
    comments = bench.harness.github.comments(bench.harness.repo, 1)
    if site == "read_issue":
        (progress,) = bench.progress_comments()
        assert "**Failed**" in progress and "get issue #1 failed" in progress
    if site == "permission_check":
        (reply,) = comments
        assert "could not check your permission" in reply
    if site in ("find_comment", "create_comment", "edit_comment"):
        # The work itself is done and pushed; only the report on the issue is missing.
        assert run.outputs["plan_path"] in bench.harness.origin_files(run.outputs["branch"])


def test_read_issue_404_fails_the_run_on_the_progress_comment(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    site = SITES["read_issue"]
    bench.github.inject(site.method, site.path, *[Fault(status=404, message="Not Found")] * 3)

    run = bench.run_plan()

    _assert_failed(run, "get issue #1 failed: 404 Not Found")
    assert len(run.requests_to(site.method, site.path)) == 1  # a 404 is not retried
    (progress,) = bench.progress_comments()
    assert "**Failed**" in progress and "404 Not Found" in progress
    assert bench.harness.origin_branches() == ["main"]


@pytest.mark.parametrize(
    "site", ["get_repository", "find_comment", "create_comment"], ids=lambda s: f"{s}-404"
)
def test_a_404_where_the_run_reports_fails_it_without_retrying(
    bench: EngineBench, site: str
) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    target = SITES[site]
    bench.github.inject(target.method, target.path, *[Fault(status=404)] * PERSISTENT)

    run = bench.run_plan()

    reason = "404" if site == "get_repository" else "the progress comment could not be posted"
    _assert_failed(run, reason)
    assert "404" in run.summary
    assert bench.progress_comments() == []


def test_permission_check_404_is_a_refusal(bench: EngineBench) -> None:
    """GitHub answers 404 for someone who is no collaborator: refused, not failed."""
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    site = SITES["permission_check"]
    bench.github.inject(site.method, site.path, Fault(status=404, message="Not Found"))

    run = bench.run_plan()

    assert run.exit_code == 0, run.stdout
    assert run.outputs["conclusion"] == "refused"
    (reply,) = bench.harness.github.comments(bench.harness.repo, 1)
    assert "only people with write access" in reply
    assert bench.harness.origin_branches() == ["main"]


def _delete_comments_of_issue(bench: EngineBench, number: int, issue_too: bool) -> None:
    """Delete, inside the fake GitHub, what a person deleting things in the web UI would."""
    state, repo = bench.github.state, bench.harness.repo
    with state.lock:
        for comment in state.issue_comments(repo, number):
            state.delete_comment(repo, comment.id)
        if issue_too:
            state.delete_issue(repo, number)


def test_edit_comment_404_posts_the_progress_comment_again(bench: EngineBench) -> None:
    """Someone deleted the progress comment mid-run: the outcome is posted anew, once."""
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    bench.during_architect = lambda: _delete_comments_of_issue(bench, 1, issue_too=False)

    run = bench.run_plan()

    _assert_succeeded(bench, run)
    site = SITES["edit_comment"]
    assert [r.method for r in run.github_requests if r.method in ("POST", "PATCH")] == [
        "POST",
        "PATCH",
        "POST",
    ]
    assert len(run.requests_to(site.method, site.path)) == 1


def test_issue_deleted_mid_run_fails_clearly_and_keeps_the_pushed_plan(
    bench: EngineBench,
) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    bench.during_architect = lambda: _delete_comments_of_issue(bench, 1, issue_too=True)

    run = bench.run_plan()

    _assert_failed(run, "the progress comment could not be posted")
    assert "404" in run.summary
    assert run.outputs["plan_path"] in bench.harness.origin_files(run.outputs["branch"])


LOST = Fault(kind="lost", stall_seconds=0.1)
"""GitHub carries the request out, then the connection drops before the answer."""


def test_create_comment_answer_lost_leaves_one_progress_comment(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    site = SITES["create_comment"]
    bench.github.inject(site.method, site.path, LOST)

    run = bench.run_plan()

    _assert_succeeded(bench, run)  # exactly one progress comment, ending **Done**
    assert len(run.requests_to(site.method, site.path)) == 2
    assert len(run.requests_to("DELETE", REPO + r"/issues/comments/\d+")) == 1


def test_an_invalid_retry_setting_is_a_configuration_error(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")

    run = bench.run_plan(extra={"AMELIA_GITHUB_RETRY_MAX_ATTEMPTS": "many"})

    assert run.exit_code == 2, run.stdout
    assert (
        "::error::invalid GitHub retry setting: AMELIA_GITHUB_RETRY_MAX_ATTEMPTS: Input should be"
        in run.stdout
    )
    assert run.github_requests == []
