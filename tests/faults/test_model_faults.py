"""Model API faults under the real Claude Code CLI: the Action's engine in the test's process
(`ActionHarness.run_engine`: the real CLI, proxy and PyGithub) against the scripted
Anthropic server.

A fault the CLI's own retries get past (one 500 or 529, a dropped stream) leaves a plan as
if nothing happened. A fault that persists (500 or 529 on every try, a rejected key, a model
that stalls past the run's timeout) fails the run with exit 1 and the reason on the progress
comment and in the job summary, and the transcript under AMELIA_HOME/runs keeps what the
model said and the error.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import (
    RecordedRequest,
    ScriptFunction,
    Turn,
    api_error,
    dropped,
    stall,
    text,
)
from amelia.testing.scripted_claude import role_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

RUN_TIMEOUT_MINUTES = "0.1"
"""Six seconds for the whole architect stage: ample for a plan after a retry."""
STALL_TIMEOUT_MINUTES = "0.05"
"""Three seconds for the stall cell's architect stage, whose model answers after a minute:
the CLI's first request is usually made within one, and the stage times out the same way
when it is made later."""


def _architect_faults(first: Turn, persistent: bool) -> ScriptFunction:
    """The architect's first request (or every one) meets `first`; all else is the plan."""
    plan = plan_script(probe=None)
    faulted: list[int] = []

    def answer(request: RecordedRequest) -> Turn:
        if role_of(request) == "architect" and (persistent or not faulted):
            faulted.append(1)
            return first
        return plan(request)

    return answer


def _run(
    tmp_path: Path,
    script: ScriptFunction,
    retries: int,
    timeout_minutes: str = RUN_TIMEOUT_MINUTES,
) -> tuple[ActionHarness, ActionRun]:
    harness = ActionHarness(tmp_path / "action", script=script).start()
    try:
        number = harness.add_issue("Add a farewell", "Say goodbye too.")
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"timeout_minutes": timeout_minutes},
            env={"CLAUDE_CODE_MAX_RETRIES": str(retries)},
        )
    finally:
        harness.stop()
    return harness, result


def _progress(harness: ActionHarness) -> str:
    (body,) = [c for c in harness.github.comments(harness.repo, 1) if progress_marker(1) in c]
    return body


def _transcripts(harness: ActionHarness) -> list[list[dict[str, object]]]:
    runs = sorted((harness.runner_temp / "amelia" / "runs").glob("*.jsonl"))
    return [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for path in runs
    ]


SURVIVED: dict[str, tuple[Turn, int]] = {
    "500-once": (api_error(500), 2),
    "529-overloaded-once": (api_error(529), 2),
    "dropped-stream-once": (dropped(text("I will look at greeter/core.py")), 0),
}


@pytest.mark.parametrize("cell", SURVIVED, ids=list(SURVIVED))
def test_a_transient_model_fault_is_retried_and_the_plan_lands(tmp_path: Path, cell: str) -> None:
    fault, retries = SURVIVED[cell]
    harness, run = _run(tmp_path, _architect_faults(fault, persistent=False), retries)

    assert run.exit_code == 0, run.stdout + run.stderr
    branch = run.outputs["branch"]
    assert "**Goal:**" in harness.origin_file(branch, run.outputs["plan_path"])
    assert "**Done**" in _progress(harness)
    architect = [r for r in run.model_requests if r.kind == "main"]
    assert len(architect) >= 2  # the faulted request, then the one that got the plan


FAILED: dict[str, tuple[Turn, str]] = {
    "500-persistent": (api_error(500), "500"),
    "529-overloaded-persistent": (api_error(529), "529"),
    "401-bad-key": (api_error(401, "invalid x-api-key"), "401"),
    "stall-past-timeout": (stall(60, [text("too late")]), "timed out after 3 s"),
}


@pytest.mark.parametrize("cell", FAILED, ids=list(FAILED))
def test_a_persistent_model_fault_fails_the_run_clearly(tmp_path: Path, cell: str) -> None:
    fault, reason = FAILED[cell]
    minutes = STALL_TIMEOUT_MINUTES if cell == "stall-past-timeout" else RUN_TIMEOUT_MINUTES
    harness, run = _run(tmp_path, _architect_faults(fault, persistent=True), 1, minutes)

    assert run.exit_code == 1, run.stdout + run.stderr
    assert run.outputs["conclusion"] == "failure"
    assert "::error::amelia plan failed: architect" in run.stdout
    assert reason in run.summary, run.summary
    progress = _progress(harness)
    assert "**Failed**" in progress and reason in progress
    assert "Traceback" not in run.stderr
    assert harness.origin_branches() == ["main"]
    # Nothing of the run is lost: the transcript keeps the request and the error.
    transcripts = _transcripts(harness)
    assert transcripts, "no transcript kept"
    assert transcripts[0][0]["kind"] == "request"
    kept = "\n".join(json.dumps(entry) for transcript in transcripts for entry in transcript)
    if cell == "stall-past-timeout":
        # The stage's deadline stopped the driver: its transcript says it was stopped.
        assert transcripts[-1][-1]["kind"] == "driver_stopped", kept[-2000:]
    else:
        assert reason in kept, kept[-2000:]
