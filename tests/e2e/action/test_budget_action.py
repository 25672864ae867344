"""`max_cost_usd` caps spending within an agent, on both drivers, through `amelia action`:
the driver stops the developer after the model response that reaches the budget (before
acting on it), the work done until then is committed and pushed in a draft that says the
run stopped on budget, the reviewer never runs, and the run exits 1 with the line. The API
driver's run is the engine in the test's process (`run_engine`), as real but the process."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import Turn, reply, text, tool_use
from amelia.testing.openai_server import ScriptedOpenAIServer, billed
from amelia.testing.openai_server import text as openai_text
from amelia.testing.openai_server import tool_call as openai_tool_call
from amelia.testing.scripted_claude import role_of

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

BUDGET = 0.5
COSTLY_OUTPUT_TOKENS = 200_000
"""What the costly response reports: a dollar or more at any model's price, while the
responses before it cost cents."""
STOP_LINE = re.compile(
    r"stopped: budget of \$0\.5 reached during developer \(\$(\d+\.\d{4}) spent\)"
)


def _stopped_run(harness: ActionHarness, result: ActionRun, number: int) -> float:
    """What every budget stop shows; returns the spend the line names."""
    assert result.exit_code == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert result.outputs["conclusion"] == "failure"
    found = STOP_LINE.search(result.stdout)
    assert found is not None, result.stdout
    spent = float(found.group(1))
    assert spent >= BUDGET
    assert float(result.outputs["cost_usd"]) == pytest.approx(spent, abs=1e-4)
    assert "| developer |" in result.summary and "| reviewer |" not in result.summary
    assert f"${spent:.4f}" in result.summary
    # The work of the responses before the costly one is pushed; nothing after it ran.
    branch = f"amelia/issue-{number}"
    assert harness.origin_file(branch, "one.py") == "ONE = 1\n"
    pushed = harness.origin_files(branch)
    assert "two.py" not in pushed and "three.py" not in pushed
    (pull,) = harness.github.pulls(harness.repo)
    assert pull["draft"] is True and pull["head"]["ref"] == branch
    assert found.group(0) in pull["body"] and "the reviewer has not reviewed" in pull["body"]
    assert harness.github.reviews(harness.repo, pull["number"]) == []
    (progress,) = [
        c for c in harness.github.comments(harness.repo, number) if progress_marker(number) in c
    ]
    assert "**Failed**" in progress and found.group(0) in progress
    assert f"cost ${spent:.2f}" in progress
    return spent


def test_claude_code_stops_the_developer_at_the_budget(tmp_path: Path) -> None:
    workspace = tmp_path / "action" / "workspace"

    def write(name: str, content: str) -> Turn:
        return [tool_use("Write", {"file_path": str(workspace / name), "content": content})]

    # The costly response holds no tool call: Claude Code runs tools while a response
    # streams, so one in the response that reaches the budget may have started (or been
    # cut short) when the CLI stops.
    developer: list[Turn] = [
        write("one.py", "ONE = 1\n"),
        reply(text("Now two.py"), output_tokens=COSTLY_OUTPUT_TOKENS),
        write("two.py", "TWO = 2\n"),
        write("three.py", "THREE = 3\n"),
        [text("Done")],
    ]
    script = plan_script(probe=None, roles={"developer": developer})
    with ActionHarness(tmp_path / "action", script=script) as harness:
        number = harness.add_planned_issue("Add numbers", "Write the number files.")
        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"max_cost_usd": f"{BUDGET:g}"},
        )

        _stopped_run(harness, result, number)
        main = [r for r in result.model_requests if r.kind == "main"]
        assert [role_of(r) for r in main] == ["developer", "developer"]


def test_the_api_driver_stops_the_developer_at_the_budget(tmp_path: Path) -> None:
    verdict = {"verdict": "approved", "severity": "none", "summary": "fine", "comments": []}
    openai = ScriptedOpenAIServer(
        script=[
            [openai_tool_call("write_file", {"file_path": "one.py", "content": "ONE = 1\n"})],
            [
                openai_tool_call("write_file", {"file_path": "two.py", "content": "TWO = 2\n"}),
                billed(COSTLY_OUTPUT_TOKENS),
            ],
            [openai_tool_call("write_file", {"file_path": "three.py", "content": "THREE = 3\n"})],
            [openai_text("Done")],
            [openai_tool_call("final_result", verdict)],
        ]
    )
    with ActionHarness(tmp_path / "action") as harness, openai:
        number = harness.add_planned_issue("Add numbers", "Write the number files.")
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={
                "driver": "api:openai",
                "model": "openai:gpt-4.1",
                "openai_api_key": "sk-local-openai-key-0123456789",
                "max_cost_usd": f"{BUDGET:g}",
            },
            env={"OPENAI_BASE_URL": openai.url},
        )

        _stopped_run(harness, result, number)
        assert len(openai.requests) == 2  # the developer's two; no reviewer request
        assert openai.remaining_turns == 3
        assert result.model_requests == []
