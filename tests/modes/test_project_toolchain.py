"""`/amelia implement` in a project with a toolchain, run in-process: the setup runs before
any agent and installs a tool, the test command (using that tool) runs after every
developer round, and its outcome reaches the reviewer, the pull request, the job summary
and the verdict. The repository sets both in `.github/amelia.yml` on its default branch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness, git
from amelia.testing.scripted_agents import (
    AgentRequest,
    ScriptedAgents,
    final_result,
    say,
    shell,
    write_file,
)

GOOD = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
BAD = 'def farewell(name: str) -> str:\n    return "Bye"\n'
SETUP_SCRIPT = """#!/bin/sh
set -e
echo "installing check-farewell"
tools="$HOME/project-tools"
mkdir -p "$tools"
cat > "$tools/check-farewell" <<'TOOL'
#!/bin/sh
set -e
python3 -B - <<'PY'
from greeter.farewell import farewell
said = farewell("Ann")
assert said == "Goodbye, Ann!", f"farewell is wrong: {said}"
PY
echo "farewell ok"
TOOL
chmod +x "$tools/check-farewell"
echo "$tools" >> "$GITHUB_PATH"
echo "setup done"
"""
CONFIG = "setup: .github/amelia/setup.sh\ntest_command: check-farewell\n"
TOOLCHAIN = {".github/amelia.yml": CONFIG, ".github/amelia/setup.sh": SETUP_SCRIPT}
APPROVED: dict[str, Any] = {"verdict": "approved", "severity": "none", "summary": "Looks right"}


def _last_is_tool_result(messages: Sequence[ModelMessage]) -> bool:
    last = messages[-1] if messages else None
    return isinstance(last, ModelRequest) and any(
        isinstance(part, ToolReturnPart) for part in last.parts
    )


def _tool_results(messages: Sequence[ModelMessage]) -> int:
    return sum(
        1
        for message in messages
        if isinstance(message, ModelRequest)
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    )


def agents(farewell: str) -> ScriptedAgents:
    """Each developer round writes `farewell` and runs the tool the setup installed; the
    reviewer approves whatever it sees."""

    def reviewer(messages: list[ModelMessage]) -> list[Any]:
        if _last_is_tool_result(messages):
            return [say("ok")]
        return [final_result(**APPROVED)]

    def developer(messages: list[ModelMessage]) -> list[Any]:
        if not _last_is_tool_result(messages):
            return [write_file("greeter/farewell.py", farewell)]
        if _tool_results(messages) % 2 == 1:
            return [shell("check-farewell")]
        return [say("Added greeter/farewell.py")]

    return ScriptedAgents({"reviewer": [reviewer], "developer": [developer]})


def _commit_to_main(action: ActionHarness, files: dict[str, str]) -> None:
    """A maintainer's commit on the default branch (the trusted commit)."""
    clone = action.root / "maintainer"
    git(action.root, "clone", "--quiet", str(action.origin), str(clone))
    for name, content in files.items():
        path = clone / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    git(clone, "add", "--all")
    git(clone, "-c", "user.name=M", "-c", "user.email=m@x.invalid", "commit", "-qm", "Setup")
    git(clone, "push", "--quiet", "origin", "main")


def _planned(action: ActionHarness, files: dict[str, str] | None = None) -> int:
    """An issue whose plan is on its branch, and the default branch holding `files`."""
    if files:
        _commit_to_main(action, files)
    number = action.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    action.push_branch(
        f"amelia/issue-{number}",
        {f"docs/plans/2026-11-22-issue-{number}-farewell.md": DEFAULT_PLAN},
    )
    action.fresh_checkout()
    return number


def _requests(run_requests: Sequence[AgentRequest], role: str) -> list[str]:
    return [
        r.as_json() for r in run_requests if r.role == role and not _last_is_tool_result(r.messages)
    ]


def test_setup_installs_a_tool_the_test_command_uses_and_the_pull_says_passed(
    action: ActionHarness,
) -> None:
    action.agents = agents(GOOD)
    number = _planned(action, TOOLCHAIN)
    result = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement")
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    assert result.outputs["verdict"] == "approved"
    # The setup's output is one group of the log; its tail is in the job summary.
    log = result.stdout
    group = log[log.index("::group::amelia setup: .github/amelia/setup.sh") :]
    assert group.index("installing check-farewell") < group.index("::endgroup::")
    assert "Setup `.github/amelia/setup.sh`: passed" in result.summary
    assert "setup done" in result.summary
    # The developer's own tool call found the tool on its PATH.
    developer_turns = [r.as_json() for r in result.agent_requests if r.role == "developer"]
    assert any("farewell ok" in body for body in developer_turns)
    # The reviewer got amelia's own test run as a fact.
    (review_prompt,) = _requests(result.agent_requests, "reviewer")
    assert "## Test results (run by amelia" in review_prompt
    assert "Outcome: passed" in review_prompt

    (pull,) = action.github.pulls(action.repo)
    assert "Tests: `check-farewell` — passed" in pull["body"]
    assert "farewell ok" in pull["body"] and "<details>" in pull["body"]
    assert "**Tests:** `check-farewell` — passed" in result.summary
    (progress,) = [
        c for c in action.github.comments(action.repo, number) if progress_marker(number) in c
    ]
    assert "✅ setup" in progress and "✅ tests: `check-farewell` passed" in progress
    # What the setup installed is not part of the change.
    added = set(action.origin_files(f"amelia/issue-{number}")) - set(action.origin_files("main"))
    assert added == {"greeter/farewell.py", f"docs/plans/2026-11-22-issue-{number}-farewell.md"}


def test_a_failing_test_command_goes_back_to_the_developer_and_is_never_approved(
    action: ActionHarness,
) -> None:
    action.agents = agents(BAD)
    number = _planned(action, TOOLCHAIN)
    result = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia implement"),
        inputs={"max_review_iterations": "2", "review_event": "AUTO"},
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    first, second = _requests(result.agent_requests, "developer")
    assert "Test results" not in first
    # The second round sees amelia's failed run, with the tool's own complaint.
    assert "Outcome: failed (exit 1)" in second and "farewell is wrong: Bye" in second
    # The reviewer approved twice; the failing tests overrule it.
    assert result.outputs["verdict"] == "changes_requested"
    (pull,) = action.github.pulls(action.repo)
    assert "Tests: `check-farewell` — failed (exit 1)" in pull["body"]
    assert "Latest automated verdict: **changes_requested**" in pull["body"]
    (review,) = action.github.reviews(action.repo, pull["number"])
    assert review["state"] == "CHANGES_REQUESTED"
    findings = review["body"][review["body"].index("### Findings") :]
    assert "The test command `check-farewell` failed (exit 1) after round 2" in findings
    assert "**Tests:** `check-farewell` — failed (exit 1)" in result.summary


def test_a_failing_setup_stops_the_run_before_any_model_request(action: ActionHarness) -> None:
    number = _planned(action)
    leaked = "ghp_" + "SetupPrintedThisToken0123456789abcdef"
    setup = f"echo preparing; echo using {leaked}; echo 'no compiler here' >&2; exit 3"
    result = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia implement"),
        inputs={"setup_script": setup, "test_command": "true"},
    )

    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "failure"
    assert not result.agent_requests
    assert "Traceback" not in result.stderr
    (progress,) = [
        c for c in action.github.comments(action.repo, number) if progress_marker(number) in c
    ]
    assert "**Failed**" in progress and "failed (exit 3)" in progress
    assert "no compiler here" in progress and "<details>" in progress
    assert leaked not in progress and "***" in progress
    assert action.github.pulls(action.repo) == []
    assert leaked not in result.stdout
