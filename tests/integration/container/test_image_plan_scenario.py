"""`/amelia plan` end to end, run by the rehearsed image's ENTRYPOINT as a container action:
the workspace owned by the runner's uid, against the local GitHub and scripted model servers."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator

import pytest
from scripts.image_rehearsal.builder import RehearsalResult
from scripts.image_rehearsal.entrypoint import RUNNER_UID
from scripts.image_rehearsal.mounts import mount_points_under
from scripts.image_rehearsal.plan_scenario import PlanOutcome, run_plan

from amelia.testing.action_harness import DEFAULT_PLAN, PROBE_COMMAND, ActionHarness, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from tests.integration.container.conftest import REPO, requires_rehearsal

pytestmark = [requires_rehearsal, pytest.mark.e2e, pytest.mark.timeout(1200)]


@pytest.fixture(scope="module")
def harness(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ActionHarness]:
    # The architect also lists the checkout with owners' numbers: the image's agent user's
    # while it runs (Claude Code's read-only Bash reads nothing outside the checkout, so
    # not its own /proc/self/status).
    architect: list[Turn] = [
        [tool_use("Bash", {"command": PROBE_COMMAND, "description": "Look around"})],
        [tool_use("Bash", {"command": "ls -ln", "description": "Owners"})],
        [text(DEFAULT_PLAN)],
    ]
    root = tmp_path_factory.mktemp("plan-scenario") / "action"
    with ActionHarness(root, script=plan_script(roles={"architect": architect})) as started:
        yield started


@pytest.fixture(scope="module")
def planned(product_image: RehearsalResult, harness: ActionHarness) -> PlanOutcome:
    """One run of the scenario (a few seconds on a cached image), checked by every test."""
    return run_plan(product_image, harness)


def test_the_image_plans_the_issue_and_pushes_the_plan(
    planned: PlanOutcome, harness: ActionHarness
) -> None:
    run = planned.run
    assert run.command == ("amelia", "action")
    assert planned.problems() == [], run.stdout + run.stderr
    assert run.returncode == 0
    branch = run.outputs["branch"]
    assert branch == f"amelia/issue-{planned.issue_number}"
    assert run.outputs["conclusion"] == "success"
    plan_path = run.outputs["plan_path"]
    assert plan_path in harness.origin_files(branch)
    message = harness.origin_git("log", "-1", "--format=%an%n%B", branch)
    assert message.startswith(f"amelia[bot]\nPlan issue #{planned.issue_number}")
    sha = harness.origin_git("rev-parse", branch).strip()
    (final,) = planned.progress_comments
    assert f"{harness.server_url}/octo/app/blob/{sha}/{plan_path}" in final
    assert "**Done**" in final
    assert "| architect |" in run.step_summary


def test_the_runner_owned_workspace_holds_the_plan_commit(
    planned: PlanOutcome, harness: ActionHarness
) -> None:
    """The checkout stays the runner's, git accepted it, and later steps see the commit."""
    assert planned.run.returncode == 0, planned.run.stdout + planned.run.stderr
    assert harness.workspace.stat().st_uid == RUNNER_UID
    branch = planned.run.outputs["branch"]
    workspace_head = harness.origin_git("-C", str(harness.workspace), "rev-parse", "HEAD")
    assert workspace_head == harness.origin_git("rev-parse", branch)
    # The checkout's persisted credentials are back for later steps once the agents are done.
    assert "extraheader" in (harness.workspace / ".git/config").read_text()


def test_the_model_conversation_went_through_the_bundled_cli(
    planned: PlanOutcome, harness: ActionHarness
) -> None:
    """The architect's Bash probe ran inside the image and its output reached the model."""
    assert planned.run.returncode == 0, planned.run.stdout + planned.run.stderr
    seen = "\n".join(str(request.body) for request in harness.model.requests)
    assert "cat .git/config" in seen
    # The probe read .git/config while the checkout's credentials were taken out of it.
    assert "extraheader" not in seen
    assert harness.token not in seen
    assert harness.token not in planned.run.stderr


def test_the_architect_worked_in_a_checkout_handed_to_the_images_agent_user(
    planned: PlanOutcome, harness: ActionHarness
) -> None:
    """While the architect ran, the checkout's files were amelia-agent's (uid 10001);
    afterwards they are the runner's again."""
    assert planned.run.returncode == 0, planned.run.stdout + planned.run.stderr
    seen = "\n".join(str(request.body) for request in harness.model.requests)
    listing = re.search(r"total \d+(\\n[^']*?)'", seen)
    assert listing is not None
    rows = [row.split() for row in listing.group(1).split("\\n") if row.strip()]
    assert {"README.md", "greeter", "tests"} <= {row[-1] for row in rows}
    assert {(row[2], row[3]) for row in rows} == {("10001", "10001")}
    assert {path.stat().st_uid for path in harness.workspace.iterdir()} == {RUNNER_UID}


def test_the_run_leaves_no_mounts_behind(planned: PlanOutcome, harness: ActionHarness) -> None:
    assert planned.run.returncode == 0, planned.run.stdout + planned.run.stderr
    assert mount_points_under(harness.root) == []
    assert harness.origin_branches() == sorted(["main", planned.branch])


def test_rehearse_image_runs_the_same_scenario(product_image: RehearsalResult) -> None:
    """`scripts/rehearse-image --scenario plan` (the image is cached by the fixture)."""
    result = subprocess.run(
        [str(REPO / "scripts/rehearse-image"), "--scenario", "plan"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert "scenario plan: amelia action exited 0" in lines
    assert "scenario plan: output branch=amelia/issue-1" in lines
    assert "scenario plan: origin branches amelia/issue-1 main" in lines
    assert lines[-2] == "scenario plan: 1 progress comment(s) posted"
    assert lines[-1].startswith("image rehearsal: ok (") and lines[-1].endswith(" MB)")
