"""The Action's image handles webhook events end to end, started as the runner starts it:
`/amelia plan`, `/amelia implement` (the developer writes, the project's test command
runs; the recording it leaves replays on this machine) and a pull request's review,
against the local GitHub and scripted model servers."""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from amelia.github.markers import progress_marker
from amelia.replay.player import ReplayResult
from amelia.testing.action_harness import DEFAULT_PLAN, PROBE_COMMAND, ActionHarness, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from amelia.testing.replay import assert_replays
from tests.image_user import IMAGE_USER, ensure_image_user, missing_reason
from tests.integration.container.runner import RUNNER_UID, ContainerActionRunner
from tests.integration.container.scenarios import (
    FAREWELL,
    TEST_COMMAND,
    implementer,
    owners,
    planned_issue,
    run_event,
)

pytestmark = [pytest.mark.container, pytest.mark.e2e, pytest.mark.timeout(600)]

REVIEW: dict[str, Any] = {
    "verdict": "changes_requested",
    "severity": "major",
    "summary": "farewell says Bye, greet says Hello",
    "comments": [
        {
            "path": "greeter/core.py",
            "line": 11,
            "severity": "major",
            "body": "Say Goodbye, like greet says Hello",
        }
    ],
}


def test_plan_commits_the_plan_from_the_runner_owned_checkout(
    runner: ContainerActionRunner, tmp_path: Path
) -> None:
    # The architect also lists the checkout with owners' numbers: the agent user's while
    # it runs.
    architect: list[Turn] = [
        [tool_use("Bash", {"command": PROBE_COMMAND, "description": "Look around"})],
        [tool_use("Bash", {"command": "ls -ln", "description": "Owners"})],
        [text(DEFAULT_PLAN)],
    ]
    script = plan_script(roles={"architect": architect})
    with ActionHarness(tmp_path / "action", script=script) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
        harness.chown_workspace(RUNNER_UID, RUNNER_UID)

        run = run_event(
            runner, harness, "issue_comment", harness.comment_event(number, "/amelia plan")
        )

        assert run.returncode == 0, run.log
        branch = run.outputs["branch"]
        assert (branch, run.outputs["conclusion"]) == (f"amelia/issue-{number}", "success")
        plan_path = run.outputs["plan_path"]
        assert plan_path.startswith("docs/plans/") and plan_path in harness.origin_files(branch)
        assert "**Goal:**" in harness.origin_file(branch, plan_path)
        message = harness.origin_git("log", "-1", "--format=%an%n%B", branch)
        assert message.startswith(f"amelia[bot]\nPlan issue #{number}")
        sha = harness.origin_git("rev-parse", branch).strip()
        (progress,) = [
            c for c in harness.github.comments(harness.repo, number) if progress_marker(number) in c
        ]
        assert f"{harness.server_url}/octo/app/blob/{sha}/{plan_path}" in progress
        assert "**Done**" in progress
        assert "| architect |" in run.summary
        # The transcript stays in the runner's home for later steps (an artifact upload).
        assert any(f.startswith("amelia/runs/") and f.endswith(".jsonl") for f in run.home_files)

        # While the architect ran, the checkout was the agent user's (uid 10001) ...
        seen = "\n".join(str(request.body) for request in harness.model.requests)
        listing = re.search(r"total \d+(\\n[^']*?)'", seen)
        assert listing is not None
        rows = [row.split() for row in listing.group(1).split("\\n") if row.strip()]
        assert {"README.md", "greeter", "tests"} <= {row[-1] for row in rows}
        assert {(row[2], row[3]) for row in rows} == {("10001", "10001")}
        # ... while its probe of .git/config found the credentials taken out ...
        assert "cat .git/config" in seen and "extraheader" not in seen
        assert harness.token not in seen
        # ... and afterwards everything is the runner's again, at the pushed commit, with
        # the persisted credentials back for later steps.
        assert owners(harness.workspace) == {(RUNNER_UID, RUNNER_UID)}
        workspace_head = harness.origin_git("-C", str(harness.workspace), "rev-parse", "HEAD")
        assert workspace_head.strip() == sha
        assert "extraheader" in (harness.workspace / ".git/config").read_text()
        # Only amelia's branch was pushed, and the container is gone (`--rm`).
        assert harness.origin_branches() == sorted(["main", branch])
        assert run.container not in runner.engine.containers()


def test_implement_writes_the_change_runs_the_tests_as_the_agent_user_and_opens_a_pull(
    runner: ContainerActionRunner, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with ActionHarness(tmp_path / "action", script=implementer("/github/workspace")) as harness:
        number, plan_path = planned_issue(harness)
        harness.chown_workspace(RUNNER_UID, RUNNER_UID)

        run = run_event(
            runner,
            harness,
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"test_command": TEST_COMMAND},
        )

        assert run.returncode == 0, run.log
        assert (run.outputs["conclusion"], run.outputs["verdict"]) == ("success", "approved")
        branch = f"amelia/issue-{number}"
        assert harness.origin_file(branch, "greeter/farewell.py") == FAREWELL
        assert set(harness.origin_files(branch)) - set(harness.origin_files("main")) == {
            "greeter/farewell.py",
            plan_path,
        }
        (pull,) = harness.github.pulls(harness.repo)
        assert run.outputs["pr_number"] == str(pull["number"])
        assert pull["head"]["ref"] == branch and pull["draft"] is True
        # The project's test command ran on the developer's code, as the agent user.
        assert "— passed" in pull["body"] and "farewell ok as uid 10001" in pull["body"]
        assert "**Tests:**" in run.summary and "passed" in run.summary
        (review,) = harness.github.reviews(harness.repo, pull["number"])
        assert "approved" in review["body"].lower()
        assert owners(harness.workspace) == {(RUNNER_UID, RUNNER_UID)}
        recording = harness.runner_temp / "_github_home" / "amelia" / "runs"
        recording /= run.outputs["recording"]
        tree = harness.origin_git("rev-parse", f"{branch}^{{tree}}").strip()

    # Every server is stopped. The recording the image left in the runner's home (the
    # checkout was another uid's: the runner's, then the agent user's) replays here, as a
    # maintainer replays the artifact: the same tree, test evidence and review.
    replayed = _replayed_here(recording, monkeypatch)
    assert [(c.branch, c.tree) for c in replayed.commits] == [(branch, tree)]
    assert "approved" in replayed.review_bodies[0].lower()


def _replayed_here(recording: Path, monkeypatch: pytest.MonkeyPatch) -> ReplayResult:
    """`recording` replayed on this machine as root, the agents as the image's agent user
    (whose uid the recorded test output shows), with a `python3` that user can run (this
    machine's own may be under /root) for the project's test command."""
    reason = missing_reason()
    if reason is not None:
        pytest.fail(f"the image's recording needs its agent user to replay: {reason}")
    ensure_image_user(IMAGE_USER)
    system_path = "/usr/local/bin:/usr/bin:/bin"
    assert shutil.which("python3", path=system_path), f"no python3 in {system_path}"
    monkeypatch.setenv("PATH", system_path)
    monkeypatch.setenv("AMELIA_AGENT_USER", IMAGE_USER)
    base = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
    try:
        base.chmod(0o755)  # the agent user enters the replay's checkout
        return assert_replays(recording, base)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_an_opened_pull_request_gets_a_review(
    runner: ContainerActionRunner, tmp_path: Path
) -> None:
    reviewer: list[Turn] = [[tool_use("StructuredOutput", REVIEW)], [text("ok")]]
    script = plan_script(roles={"reviewer": reviewer})
    with ActionHarness(tmp_path / "action", script=script) as harness:
        change = (
            '\n\ndef farewell(name: str) -> str:\n    """Say goodbye."""\n'
            '    return f"Bye, {name}!"\n'
        )
        number, event = harness.open_pull("feature", {"greeter/core.py": change})
        harness.chown_workspace(RUNNER_UID, RUNNER_UID)

        run = run_event(runner, harness, "pull_request", event)

        assert run.returncode == 0, run.log
        assert run.outputs["verdict"] == "changes_requested"
        assert run.outputs["pr_number"] == str(number)
        (review,) = harness.github.reviews(harness.repo, number)
        assert review["commit_id"] == event["pull_request"]["head"]["sha"]
        assert [(c["path"], c["line"]) for c in review["comments"]] == [("greeter/core.py", 11)]
        assert "Say Goodbye" in review["comments"][0]["body"]
        assert "changes_requested" in run.summary
        assert owners(harness.workspace) == {(RUNNER_UID, RUNNER_UID)}
