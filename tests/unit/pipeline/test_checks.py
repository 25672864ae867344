"""The test command amelia runs after a developer round: its result, what it leaves behind,
and a verdict that cannot approve while it fails."""

from __future__ import annotations

from pathlib import Path

from amelia.core.state import CheckRun, ExecutionState, ReviewComment, ReviewResult
from amelia.core.types import StreamEvent
from amelia.drivers.base import DriverInterface
from amelia.pipeline import RunContext
from amelia.pipeline.checks import TestCommand, enforce_check, run_check
from tests.git_helpers import init_repo


def _no_driver(role: str, tools: str) -> DriverInterface:
    raise AssertionError("no agent runs in these tests")


async def test_the_result_is_kept_and_the_files_it_made_are_removed(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {".gitignore": "ignored/\n", "a.py": "x = 1\n"})
    (repo / "agent_work.py").write_text("new\n", encoding="utf-8")  # the developer's file
    events: list[StreamEvent] = []

    async def sink(event: StreamEvent) -> None:
        events.append(event)

    command = (
        "mkdir -p ignored reports && echo cache > ignored/c && echo r > reports/out.xml"
        " && echo 'secret=' \"${GITHUB_TOKEN:-unset}\" && exit 2"
    )
    test = TestCommand(command=command, environment={"PATH": "/usr/bin:/bin"})
    context = RunContext(repo_dir=repo, make_driver=_no_driver, sinks=[sink], test_command=test)
    state = await run_check(ExecutionState(), context)

    check = state.last_check
    assert check is not None
    assert (check.exit_code, check.passed, check.outcome) == (2, False, "failed (exit 2)")
    assert check.tail == "secret= unset" and check.round == 1
    assert not (repo / "reports").exists()  # would have been committed as agents' work
    assert (repo / "ignored" / "c").exists()  # git ignores it anyway
    assert (repo / "agent_work.py").exists()  # there before the command ran
    assert [e.agent for e in events] == ["tests", "tests"]
    assert events[-1].is_error and events[-1].content == f"`{command}` failed (exit 2)"
    again = await run_check(state, context)
    assert again.last_check is not None and again.last_check.round == 2


async def test_without_a_test_command_nothing_runs(tmp_path: Path) -> None:
    state = ExecutionState()
    assert await run_check(state, RunContext(repo_dir=tmp_path, make_driver=_no_driver)) is state


def _state(verdict: str, check: CheckRun | None) -> ExecutionState:
    comment = ReviewComment(path="a.py", line=1, severity="minor", body="nit")
    review = ReviewResult(verdict=verdict, severity="minor", summary="fine", comments=(comment,))
    return ExecutionState(last_review=review, last_check=check)


def test_a_failing_test_command_turns_an_approval_into_changes_requested() -> None:
    failed = CheckRun(command="make test", exit_code=1, round=3)
    review = enforce_check(_state("approved", failed), origin=".github/amelia.yml").last_review
    assert review is not None and not review.approved
    assert review.severity == "major"
    first, nit = review.comments
    assert first.path == ".github/amelia.yml"
    assert first.body == "The test command `make test` failed (exit 1) after round 3."
    assert nit.body == "nit"
    assert review.summary.startswith("The test command fails")


def test_a_timeout_is_a_failure_and_a_passing_run_changes_nothing() -> None:
    timed_out = CheckRun(command="pytest", timed_out=True, timeout_seconds=600)
    assert timed_out.outcome == "timed out after 10 min" and not timed_out.passed
    review = enforce_check(_state("approved", timed_out)).last_review
    assert review is not None and review.verdict == "changes_requested"
    passing = _state("approved", CheckRun(command="pytest", exit_code=0))
    assert enforce_check(passing) is passing
    assert enforce_check(_state("approved", None)).last_review == passing.last_review
