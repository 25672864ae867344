"""The GitHub fault matrix for the call sites of the other modes: opening the pull request
and posting the review (`/amelia implement`), and listing labelled issues (`scan`).

Same rule as for plan: one bad answer is retried and the run succeeds (with exactly one pull
request and one review: no duplicate from a retried POST); a persistent fault or a 404 ends
the run with exit 1 and the reason in the job summary and on the progress comment, with the
code already pushed.
"""

from __future__ import annotations

import json

import pytest

from amelia.testing.github_server import Fault
from tests.faults.conftest import EngineBench, EngineRun
from tests.faults.test_github_faults import PERSISTENT, RETRY_AFTER, TRANSIENT

pytestmark = [pytest.mark.timeout(120)]

PULLS = r"/repos/octo/app/pulls"
REVIEWS = r"/repos/octo/app/pulls/\d+/reviews"
SEARCH = r"/repos/octo/app/issues"
BRANCH = "amelia/issue-1"
SCHEDULE = {"schedule": "17 3 * * *", "repository": {"full_name": "octo/app"}}

IMPLEMENT_SITES = {"create_pull": PULLS, "create_review": REVIEWS}
FAILURES = {
    "502-persistent": [Fault(status=502)] * PERSISTENT,
    "404": [Fault(status=404, message="Not Found")] * PERSISTENT,
}
REASONS = {"create_pull": "open pull for amelia/issue-1 failed", "create_review": "review pull #"}


def _implement(bench: EngineBench, site: str, faults: list[Fault]) -> EngineRun:
    # The plan's branch as `/amelia plan` pushes it (its faults are test_github_faults.py's).
    bench.harness.add_planned_issue("Add a farewell", "Say goodbye too.", plan=bench.plan)
    bench.harness.fresh_checkout()  # the implement job gets its own checkout
    bench.github.inject("POST", IMPLEMENT_SITES[site], *faults)
    return bench.run("issue_comment", bench.harness.comment_event(1, "/amelia implement"))


@pytest.mark.parametrize("fault", TRANSIENT, ids=list(TRANSIENT))
@pytest.mark.parametrize("site", IMPLEMENT_SITES, ids=list(IMPLEMENT_SITES))
def test_implement_survives_a_transient_fault(bench: EngineBench, site: str, fault: str) -> None:
    waits = bench.record_github_waits() if fault == RETRY_AFTER else None
    run = _implement(bench, site, [TRANSIENT[fault]])

    assert run.exit_code == 0, run.stdout
    assert run.outputs["conclusion"] == "success"
    (pull,) = bench.github.pulls(bench.harness.repo)
    assert pull["head"]["ref"] == BRANCH and run.outputs["pr_number"] == str(pull["number"])
    (review,) = bench.github.reviews(bench.harness.repo, pull["number"])
    assert review["state"] == "COMMENTED" and "Looks right" in review["body"]
    assert "greeter/farewell.py" in bench.harness.origin_files(BRANCH)
    assert len(run.requests_to("POST", IMPLEMENT_SITES[site])) == 2
    if waits is not None:
        assert 1.0 in waits  # the retry waited the second GitHub asked for


@pytest.mark.parametrize("failure", FAILURES, ids=list(FAILURES))
@pytest.mark.parametrize("site", IMPLEMENT_SITES, ids=list(IMPLEMENT_SITES))
def test_implement_fails_clearly_and_keeps_the_pushed_code(
    bench: EngineBench, site: str, failure: str
) -> None:
    run = _implement(bench, site, FAILURES[failure])

    assert run.exit_code == 1, run.stdout
    assert run.outputs["conclusion"] == "failure"
    assert REASONS[site] in run.summary and REASONS[site] in run.stdout
    assert "Traceback" not in run.stdout
    progress = bench.progress_comments()[-1]
    assert "**Failed**" in progress and REASONS[site] in progress
    assert "greeter/farewell.py" in bench.harness.origin_files(BRANCH)
    attempts = len(run.requests_to("POST", IMPLEMENT_SITES[site]))
    assert attempts == (1 if failure == "404" else 3)


@pytest.mark.parametrize("fault", TRANSIENT, ids=list(TRANSIENT))
def test_scan_survives_a_transient_fault(bench: EngineBench, fault: str) -> None:
    labelled = bench.harness.add_issue("Add a farewell", labels=["amelia"])
    bench.github.inject("GET", SEARCH, TRANSIENT[fault])
    waits = bench.record_github_waits() if fault == RETRY_AFTER else None

    run = bench.run("schedule", SCHEDULE)

    assert run.exit_code == 0, run.stdout
    assert json.loads(run.outputs["issues"]) == [labelled]
    assert len(run.requests_to("GET", SEARCH)) == 2
    if waits is not None:
        assert 1.0 in waits  # the retry waited the second GitHub asked for


@pytest.mark.parametrize("failure", FAILURES, ids=list(FAILURES))
def test_scan_fails_clearly(bench: EngineBench, failure: str) -> None:
    bench.harness.add_issue("Add a farewell", labels=["amelia"])
    bench.github.inject("GET", SEARCH, *FAILURES[failure])

    run = bench.run("schedule", SCHEDULE)

    assert run.exit_code == 1, run.stdout
    assert run.outputs["conclusion"] == "failure"
    assert "list issues labelled amelia" in run.summary and "failed" in run.summary
    assert "issues" not in run.outputs
    assert len(run.requests_to("GET", SEARCH)) == (1 if failure == "404" else 3)


@pytest.mark.parametrize("site", IMPLEMENT_SITES, ids=[f"{s}-answer-lost" for s in IMPLEMENT_SITES])
def test_implement_posts_once_when_an_answer_is_lost(bench: EngineBench, site: str) -> None:
    """GitHub acted but its answer never came: the retry finds what the first try made."""
    run = _implement(bench, site, [Fault(kind="lost", stall_seconds=0.1)])

    assert run.exit_code == 0, run.stdout
    (pull,) = bench.github.pulls(bench.harness.repo)
    assert run.outputs["pr_number"] == str(pull["number"])
    (review,) = bench.github.reviews(bench.harness.repo, pull["number"])
    assert "Looks right" in review["body"]
    # One POST that took effect, then a look instead of a second POST.
    assert len(run.requests_to("POST", IMPLEMENT_SITES[site])) == 1
