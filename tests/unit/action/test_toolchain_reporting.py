"""How the setup and the test command are reported: pull request, summary, progress."""

from __future__ import annotations

from amelia.action.engine._summary import render_summary
from amelia.action.modes._develop import pull_body
from amelia.core.state import CheckRun, ExecutionState
from amelia.github.comments import ProgressReport, render_progress
from amelia.redaction import Redactor
from amelia.text import inline_code

TOKEN = "ghp_" + "ReportedInTheTail0123456789abcdefghij"


def test_the_pull_body_names_the_command_and_its_outcome_with_the_tail_collapsed() -> None:
    failed = CheckRun(command="npm test", exit_code=2, tail="1 failing\n  at x.test.js:3", round=2)
    body = pull_body(3, "docs/plans/p.md", "https://h/p", "changes_requested", check=failed)
    assert "Tests: `npm test` — failed (exit 2)" in body
    details = body[body.index("<details>") : body.index("</details>")]
    assert "1 failing\n  at x.test.js:3" in details and "after round 2" in details
    passed = pull_body(3, "p.md", "u", "approved", check=CheckRun(command="make", exit_code=0))
    assert "Tests: `make` — passed" in passed and "(no output)" in passed
    assert "Tests:" not in pull_body(3, "p.md", "u", None)


def test_a_command_with_backticks_stays_one_piece_of_code() -> None:
    assert inline_code("pytest -q") == "`pytest -q`"
    assert inline_code("echo `date`\n&& true") == "`` echo `date` && true ``"


def test_the_summary_shows_the_last_test_run_redacted() -> None:
    check = CheckRun(command="pytest", exit_code=1, tail=f"E token {TOKEN}", round=1)
    summary = render_summary(
        "implement", "success", {}, ExecutionState(last_check=check), Redactor(secrets=[TOKEN])
    )
    assert "**Tests:** `pytest` — failed (exit 1)" in summary
    assert "E token ***" in summary and TOKEN not in summary


def test_a_failure_s_last_lines_are_on_the_progress_comment_redacted() -> None:
    report = ProgressReport(
        issue_number=1,
        command="/amelia implement",
        outcome="failed",
        failure_reason="the setup `make deps` failed (exit 3); no agent ran",
        failure_details="x" * 5000 + f"\nE: token {TOKEN}\nmake: *** [deps] Error 3",
    )
    body = render_progress(report, Redactor(secrets=[TOKEN]))
    assert "**Failed**: the setup `make deps` failed (exit 3); no agent ran." in body
    details = body[body.index("<details>") :]
    assert "make: *** [deps] Error 3" in details and TOKEN not in body
    assert len(details) < 4200
