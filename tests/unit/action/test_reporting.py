"""Job summary and stage log groups."""

from __future__ import annotations

import io

from amelia.action.engine._log_groups import LogGroupSink
from amelia.action.engine._summary import render_summary, total_cost
from amelia.action.workflow_io import WorkflowIO
from amelia.ci.run import ADD_DISPATCH_NOTE
from amelia.core.ci import CiReport, CiRunOutcome
from amelia.core.state import AgentUsage, ExecutionState
from amelia.core.types import StreamEvent, StreamEventType
from amelia.redaction import Redactor


def test_summary_lists_each_agent_and_redacts() -> None:
    state = ExecutionState(
        usage=(
            AgentUsage(
                agent="architect",
                turns=3,
                tool_calls=2,
                tool_errors=1,
                input_tokens=1200,
                output_tokens=300,
                cost_usd=0.0125,
                duration_ms=4500,
                model="claude-sonnet-4-5",
            ),
        )
    )
    text = render_summary(
        "plan",
        "failure",
        {"conclusion": "failure", "branch": "amelia/issue-1", "plan_path": ""},
        state,
        Redactor(secrets=["hunter2-secret"]),
        failure_reason="push refused with hunter2-secret",
    )
    row = "| architect | claude-sonnet-4-5 | 3 | 2 | 1 | 1,200 / 300 | $0.0125 | 4.5 s |"
    assert row in text
    assert "| `branch` | `amelia/issue-1` |" in text and "plan_path" not in text
    assert "hunter2-secret" not in text and "push refused with ***" in text
    assert total_cost(state) == 0.0125
    assert total_cost(None) is None


def test_summary_shows_warnings_and_the_modes_details_before_the_outputs() -> None:
    text = render_summary(
        "scan",
        "success",
        {"issues": "[1, 2]"},
        None,
        Redactor(secrets=["hunter2-secret"]),
        warnings=("capped at 256", "leaked hunter2-secret"),
        details="| issues | count |\n|---|---|\n| waited | 300 |\n",
    )
    lines = text.splitlines()
    assert "> **Warning:** capped at 256" in lines
    assert "> **Warning:** leaked ***" in lines
    assert lines.index("| waited | 300 |") < lines.index("| `issues` | `[1, 2]` |")
    assert "hunter2-secret" not in text


def test_a_note_about_ci_that_is_a_warning_is_said_once() -> None:
    note = ADD_DISPATCH_NOTE.format(names="`ci.yml`")
    not_run = CiReport(head_sha="a" * 40, trigger="dispatch", note=note)
    passed = CiRunOutcome(workflow="CI", status="completed", conclusion="success")
    ran = CiReport(head_sha="a" * 40, trigger="dispatch", runs=(passed,), note=note)
    for report in (not_run, ran):
        text = render_summary(
            "implement",
            "success",
            {},
            ExecutionState(last_ci=report),
            Redactor(),
            warnings=(note,),
        )
        assert text.count("workflow_dispatch:") == 1 and f"> **Warning:** {note}" in text
        assert "[!NOTE]" not in text
    # A note that is no warning of the run is shown with the CI.
    shown = render_summary("fix", "success", {}, ExecutionState(last_ci=not_run), Redactor())
    assert shown.count("workflow_dispatch:") == 1 and "> [!NOTE]" in shown


async def test_log_groups_wrap_each_stage() -> None:
    out = io.StringIO()
    sink = LogGroupSink(WorkflowIO(stream=out), Redactor(secrets=["topsecret-value"]))

    def event(kind: StreamEventType, content: str) -> StreamEvent:
        return StreamEvent(type=kind, content=content, agent="architect", workflow_id="w")

    await sink(event(StreamEventType.STAGE_STARTED, "planning"))
    await sink(event(StreamEventType.AGENT_OUTPUT, "::add-mask::x topsecret-value"))
    await sink(event(StreamEventType.STAGE_COMPLETED, "saved"))
    sink.close()
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("::group::")
    assert lines[-1] == "::endgroup::"
    assert lines.count("::endgroup::") == 1
    assert "topsecret-value" not in out.getvalue()
    assert not any(line.startswith("::add-mask::") for line in lines)
