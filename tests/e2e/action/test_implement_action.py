"""`amelia action` end to end for `/amelia implement`: the plan from `/amelia plan` is carried
out by the developer, reviewed, pushed to origin and opened as a draft pull request. The
mode is specified in-process in `tests/modes/test_implement.py`; these runs show the real
entry point with the Claude Code CLI's tools and its streamed tool errors (the plan before
and the failing developer's run: `run_engine`, the engine in the test's process with the
CLI, PyGithub and the servers as real as a subprocess's)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amelia.git import noreply_address
from amelia.github.markers import marker, progress_marker
from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.anthropic_script import ScriptFunction, Turn, api_error, text, tool_use

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

FAKE_GITHUB_TOKEN = "ghp_" + "Zx9LeakedPersonalToken0123456789abcd"
OPENAI_KEY = "sk-proj-" + "LocalFakeOpenAIKey0123456789abcdefXYZ"
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
VERDICT: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "farewell mirrors greet",
    "comments": [
        {
            "path": "greeter/farewell.py",
            "line": 2,
            "severity": "minor",
            "body": "Consider a docstring",
            "suggestion": '    """Say goodbye."""\n    return f"Goodbye, {name}!"',
        }
    ],
}


def implement_script(workspace: Path, failing_command: str | None) -> ScriptFunction:
    developer: list[Turn] = [
        [
            tool_use(
                "Write",
                {"file_path": str(workspace / "greeter" / "farewell.py"), "content": FAREWELL},
            )
        ]
    ]
    if failing_command is not None:
        developer.append([tool_use("Bash", {"command": failing_command, "description": "Test"})])
    developer.append([text("Added greeter/farewell.py")])
    reviewer: list[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
    return plan_script(roles={"developer": developer, "reviewer": reviewer})


def _planned_issue(harness: ActionHarness) -> int:
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    planned = harness.run_engine("issue_comment", harness.comment_event(number, "/amelia plan"))
    assert planned.exit_code == 0, planned.stdout + planned.stderr
    harness.fresh_checkout()  # the implement job gets its own checkout of the default branch
    return number


def test_implement_after_plan_opens_a_reviewed_draft_pull(tmp_path: Path) -> None:
    secret_file = tmp_path / "service-keys.txt"
    secret_file.write_text(f"OPENAI={OPENAI_KEY}\n", encoding="utf-8")
    failing = f"echo token {FAKE_GITHUB_TOKEN}; cat {secret_file}; ls /no/such/amelia/dir"
    root = tmp_path / "action"
    with ActionHarness(root, script=implement_script(root / "workspace", failing)) as harness:
        number = _planned_issue(harness)
        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"openai_api_key": OPENAI_KEY},
        )

        assert result.exit_code == 0, result.stdout + result.stderr
        branch = f"amelia/issue-{number}"
        assert result.outputs["branch"] == branch
        assert result.outputs["verdict"] == "approved"
        assert result.outputs["conclusion"] == "success"
        # The developer's file is committed on the branch in origin by the bot, co-authored.
        assert harness.origin_file(branch, "greeter/farewell.py") == FAREWELL
        added = set(harness.origin_files(branch)) - set(harness.origin_files("main"))
        assert added == {"greeter/farewell.py", result.outputs["plan_path"]}
        log = harness.origin_git("log", "-1", "--format=%an%n%B", branch)
        assert log.startswith("amelia[bot]\nImplement issue #1")
        address = noreply_address("maintainer", server_url=harness.server_url)
        assert f"Co-authored-by: maintainer <{address}>" in log

        (pull,) = harness.github.pulls(harness.repo)
        assert pull["draft"] is True
        assert str(pull["number"]) == result.outputs["pr_number"]
        assert pull["head"]["ref"] == branch and pull["base"]["ref"] == "main"
        head = harness.origin_git("rev-parse", branch).strip()
        plan_path = result.outputs["plan_path"]
        assert f"Closes #{number}" in pull["body"]
        assert f"{harness.server_url}/octo/app/blob/{head}/{plan_path}" in pull["body"]

        issue_comments = harness.github.comments(harness.repo, number)
        (progress,) = [c for c in issue_comments if progress_marker(number) in c]
        assert "**Done**" in progress
        assert f"[Draft pull request #{pull['number']}]({pull['html_url']})" in progress

        (review,) = harness.github.reviews(harness.repo, pull["number"])
        assert review["state"] == "COMMENTED"
        assert review["commit_id"] == head
        assert f"`{head[:12]}`" in review["body"]
        (inline,) = review["comments"]
        assert (inline["path"], inline["line"]) == ("greeter/farewell.py", 2)
        assert "```suggestion" in inline["body"]

        errors = [
            c
            for c in harness.github.comments(harness.repo, pull["number"])
            if marker("tool-errors") in c
        ]
        assert len(errors) == 1
        assert "developer: Bash" in errors[0] and "/no/such/amelia/dir" in errors[0]
        assert "<details>" in errors[0]

        # Neither secret reaches GitHub, though both went through the tool's output.
        assert FAKE_GITHUB_TOKEN in result.model_text()
        assert OPENAI_KEY in result.model_text()
        assert "***" in errors[0]
        for request in harness.github.requests:
            sent = json.dumps(request.body)
            assert FAKE_GITHUB_TOKEN not in sent
            assert OPENAI_KEY not in sent


def test_a_failing_developer_reports_its_tool_errors_on_the_issue(tmp_path: Path) -> None:
    developer: list[Turn] = [
        [tool_use("Bash", {"command": "ls /no/such/amelia/dir", "description": "Look"})],
        api_error(400, "the scripted model refuses to go on"),
    ]
    script = plan_script(roles={"developer": developer})
    with ActionHarness(tmp_path / "action", script=script) as harness:
        number = _planned_issue(harness)
        implement = harness.comment_event(number, "/amelia implement")
        result = harness.run_engine("issue_comment", implement)

        assert result.exit_code == 1, result.stdout + result.stderr
        assert result.outputs["conclusion"] == "failure"
        assert "Traceback" not in result.stderr
        assert harness.github.pulls(harness.repo) == []
        posted = harness.github.comments(harness.repo, number)
        (errors,) = [c for c in posted if marker("tool-errors") in c]
        assert "developer: Bash" in errors and "/no/such/amelia/dir" in errors
        (progress,) = [c for c in posted if progress_marker(number) in c]
        assert "**Failed**" in progress and "developer failed" in progress
