"""`/amelia implement`, run in-process: the plan is carried out by the developer (the API
driver's real tools in the checkout), reviewed, pushed and opened as a draft pull request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from amelia.git import noreply_address
from amelia.github.markers import marker, progress_marker
from amelia.testing.action_harness import ActionHarness, git, plan_agents
from amelia.testing.scripted_agents import ScriptedAgents, final_result, say, shell, write_file

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


def implement_agents(failing_command: str | None = None) -> ScriptedAgents:
    developer: list[Any] = [[write_file("greeter/farewell.py", FAREWELL)]]
    if failing_command is not None:
        developer.append([shell(failing_command)])
    developer.append([say("Added greeter/farewell.py")])
    reviewer = [[final_result(**VERDICT)], [say("ok")]]
    return plan_agents(roles={"developer": developer, "reviewer": reviewer})


def _planned_issue(action: ActionHarness) -> int:
    number = action.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    planned = action.run_in_process("issue_comment", action.comment_event(number, "/amelia plan"))
    assert planned.exit_code == 0, planned.stdout + planned.stderr
    action.fresh_checkout()  # the implement job gets its own checkout of the default branch
    return number


def test_implementing_a_plan_opens_a_reviewed_draft_pull_with_the_developers_work(
    action: ActionHarness, tmp_path: Path
) -> None:
    secret_file = tmp_path / "service-keys.txt"
    secret_file.write_text(f"OPENAI={OPENAI_KEY}\n", encoding="utf-8")
    failing = f"echo token {FAKE_GITHUB_TOKEN}; cat {secret_file}; ls /no/such/amelia/dir"
    action.agents = implement_agents(failing)
    number = _planned_issue(action)
    run = action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia implement"),
        inputs={"openai_api_key": OPENAI_KEY},
    )

    assert run.exit_code == 0, run.stdout + run.stderr
    branch = f"amelia/issue-{number}"
    assert run.outputs["branch"] == branch
    assert run.outputs["verdict"] == "approved"
    assert run.outputs["conclusion"] == "success"
    # The developer's file is committed on the branch in origin by the bot, co-authored.
    assert action.origin_file(branch, "greeter/farewell.py") == FAREWELL
    added = set(action.origin_files(branch)) - set(action.origin_files("main"))
    assert added == {"greeter/farewell.py", run.outputs["plan_path"]}
    log = action.origin_git("log", "-1", "--format=%an%n%B", branch)
    assert log.startswith("amelia[bot]\nImplement issue #1")
    address = noreply_address("maintainer", server_url=action.server_url)
    assert f"Co-authored-by: maintainer <{address}>" in log

    (pull,) = action.github.pulls(action.repo)
    assert pull["draft"] is True
    assert str(pull["number"]) == run.outputs["pr_number"]
    assert pull["head"]["ref"] == branch and pull["base"]["ref"] == "main"
    head = action.origin_git("rev-parse", branch).strip()
    plan_path = run.outputs["plan_path"]
    assert f"Closes #{number}" in pull["body"]
    assert f"{action.server_url}/octo/app/blob/{head}/{plan_path}" in pull["body"]

    issue_comments = action.github.comments(action.repo, number)
    (progress,) = [c for c in issue_comments if progress_marker(number) in c]
    assert "**Done**" in progress
    assert f"[Draft pull request #{pull['number']}]({pull['html_url']})" in progress

    (review,) = action.github.reviews(action.repo, pull["number"])
    assert review["state"] == "COMMENTED"
    assert review["commit_id"] == head
    assert f"`{head[:12]}`" in review["body"]
    (inline,) = review["comments"]
    assert (inline["path"], inline["line"]) == ("greeter/farewell.py", 2)
    assert "```suggestion" in inline["body"]

    errors = [
        c for c in action.github.comments(action.repo, pull["number"]) if marker("tool-errors") in c
    ]
    assert len(errors) == 1
    assert "developer: run_shell_command" in errors[0] and "/no/such/amelia/dir" in errors[0]
    assert "<details>" in errors[0]

    # Neither secret reaches GitHub, though both went through the tool's output.
    assert FAKE_GITHUB_TOKEN in run.model_text()
    assert OPENAI_KEY in run.model_text()
    assert "***" in errors[0]
    posted = action.github_text()
    assert FAKE_GITHUB_TOKEN not in posted
    assert OPENAI_KEY not in posted


def test_implementing_without_a_plan_suggests_planning_first_and_runs_no_agent(
    action: ActionHarness,
) -> None:
    number = action.add_issue("Add a farewell", "Say goodbye.")
    run = action.run_in_process("issue_comment", action.comment_event(number, "/amelia implement"))

    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.outputs["conclusion"] == "skipped"
    assert run.agent_requests == []
    (reply,) = action.github.comments(action.repo, number)
    assert "`/amelia plan`" in reply and "amelia/issue-1" in reply
    assert action.origin_branches() == ["main"]
    assert action.github.pulls(action.repo) == []


def test_implementing_again_on_the_draft_pull_updates_that_pull(action: ActionHarness) -> None:
    action.agents = implement_agents()
    number = _planned_issue(action)
    first = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement")
    )
    assert first.exit_code == 0, first.stdout + first.stderr
    action.fresh_checkout()
    # Asked on the draft pull request this time: its branch names the issue.
    on_pull = action.pull_comment_event(int(first.outputs["pr_number"]), "/amelia implement")
    second = action.run_in_process("issue_comment", on_pull)

    assert second.exit_code == 0, second.stdout + second.stderr
    assert second.outputs["pr_number"] == first.outputs["pr_number"]
    assert len(action.github.pulls(action.repo)) == 1
    assert [r for r in second.github_writes if r.path.endswith("/pulls")] == []
    assert len(action.github.reviews(action.repo, int(first.outputs["pr_number"]))) == 2
    # No tool call failed, so no error comment was posted.
    posted = action.github.comments(action.repo, int(first.outputs["pr_number"]))
    assert not [c for c in posted if marker("tool-errors") in c]


def test_a_dispatched_implement_on_the_plans_pull_updates_that_pull(action: ActionHarness) -> None:
    action.agents = implement_agents()
    number = _planned_issue(action)
    first = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement")
    )
    assert first.exit_code == 0, first.stdout + first.stderr
    action.fresh_checkout()
    pull_number = first.outputs["pr_number"]
    payload = action.dispatch_event(issue_number=pull_number, command="implement")
    second = action.run_in_process("workflow_dispatch", payload)

    assert second.exit_code == 0, second.stdout + second.stderr
    assert second.outputs["pr_number"] == pull_number
    assert second.outputs["branch"] == f"amelia/issue-{number}"
    assert len(action.github.pulls(action.repo)) == 1


def test_a_dry_run_says_it_would_open_the_draft_and_names_no_pull_request(
    action: ActionHarness,
) -> None:
    action.agents = implement_agents()
    number = _planned_issue(action)
    plan_head = action.origin_git("rev-parse", f"amelia/issue-{number}").strip()
    event = action.comment_event(number, "/amelia implement")
    run = action.run_in_process("issue_comment", event, dry_run=True, workspace=action.workspace)

    assert run.exit_code == 0, run.stdout + run.stderr
    assert run.outputs["conclusion"] == "dry_run"
    assert run.github_writes == [] and action.github.pulls(action.repo) == []
    assert action.origin_git("rev-parse", f"amelia/issue-{number}").strip() == plan_head
    # No pull request was opened and nothing was pushed: neither is claimed.
    assert "pr_number" not in run.outputs
    head = git(action.workspace, "rev-parse", "HEAD").strip()
    progress = sorted(run.dry_run_dir.glob("*-edit_comment.json"))[-1].read_text()
    expected = f"dry run: would open the draft pull request (committed {head[:12]} locally"
    assert expected in progress
    assert "#0" not in progress and "pushed" not in progress.replace("not pushed", "")
    assert "Draft pull request" not in run.summary
    # The plan is linked where GitHub has it, on the branch, not at the local commit.
    assert f"/blob/amelia/issue-{number}/docs/plans/" in progress
    assert f"/blob/{head}/" not in progress


def test_a_developer_that_changes_nothing_opens_no_pull_and_approves_nothing(
    action: ActionHarness,
) -> None:
    approved: dict[str, Any] = {**VERDICT, "comments": []}
    action.agents = plan_agents(
        roles={
            "developer": [[say("Everything the plan asks for is already there.")]],
            "reviewer": [[final_result(**approved)], [say("ok")]],
        }
    )
    number = _planned_issue(action)
    branch_before = action.origin_git("rev-parse", f"amelia/issue-{number}")

    result = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement")
    )

    output = result.stdout + result.stderr
    assert result.exit_code == 1, output
    assert result.outputs["conclusion"] == "no_changes"
    assert "pr_number" not in result.outputs and "verdict" not in result.outputs
    assert result.outputs["branch"] == f"amelia/issue-{number}"
    said = f"the developer changed nothing: branch amelia/issue-{number} holds only the plan"
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert errors == [
        f"::error::amelia implement failed: {said}, so no pull request was "
        "opened and no verdict was posted"
    ]
    assert "## amelia `implement`: no_changes" in result.summary and said in result.summary
    assert action.github.pulls(action.repo) == []
    assert not [r for r in result.github_writes if "/reviews" in r.path]
    assert action.origin_git("rev-parse", f"amelia/issue-{number}") == branch_before
    posted = action.github.comments(action.repo, number)
    (progress,) = [c for c in posted if progress_marker(number) in c]
    assert "**Failed**" in progress and said in progress
    assert "Closes #" not in "".join(posted)
