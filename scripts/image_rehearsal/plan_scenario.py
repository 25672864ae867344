"""The `/amelia plan` end-to-end scenario, run by the rehearsed image's own ENTRYPOINT.

The same stand-ins as the Action's end-to-end tests (`ActionHarness`): a bare repository
as `origin`, a checkout of it as the workspace, the local GitHub server and the scripted
model server on 127.0.0.1 (a chroot shares the host's network). Only the process differs:
`amelia action` starts inside the image, the way a runner starts a container action.

The workspace's `origin` is the bare repository's host path, as actions/checkout leaves the
remote URL of the repository it cloned. The origin is mounted at that same path inside the
container, so the checkout is byte for byte the one the host-side tests use and the push
takes the path a real push takes (`git push origin`), only ending in a local directory
instead of github.com.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness
from scripts.image_rehearsal.builder import RehearsalResult
from scripts.image_rehearsal.entrypoint import EntrypointRun, image_command, run_entrypoint

ISSUE_TITLE = "Add a farewell"
ISSUE_BODY = "greeter says hello; let it say goodbye too."
HOSTED_RUNNER_TEMP = "/home/runner/work/_temp"

_RUNNER_VARIABLE_PREFIXES = ("GITHUB_", "INPUT_", "ANTHROPIC_", "CLAUDE_CODE_")
# Paths on the host that mean nothing inside the container: run_entrypoint sets the
# container's own HOME, workspace, event and file-command paths.
_HOST_PATH_VARIABLES = frozenset(
    {
        "GITHUB_WORKSPACE",
        "GITHUB_EVENT_PATH",
        "GITHUB_OUTPUT",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_ENV",
        "GITHUB_PATH",
        "GITHUB_STATE",
    }
)


class PlanOutcome(BaseModel):
    """What the scenario left behind, read from origin and the GitHub server."""

    model_config = ConfigDict(frozen=True)

    run: EntrypointRun
    issue_number: int
    branch: str
    origin_branches: list[str]
    plan_text: str
    progress_comments: list[str]

    def problems(self) -> list[str]:
        """Every way the run fell short of a completed `/amelia plan` (empty: it passed)."""
        found = []
        if self.run.returncode != 0:
            found.append(f"amelia action exited {self.run.returncode}")
        if self.run.outputs.get("branch") != self.branch:
            found.append(f"output branch is {self.run.outputs.get('branch')!r}, not {self.branch}")
        if not self.run.outputs.get("plan_path", "").startswith("docs/plans/"):
            found.append(f"output plan_path is {self.run.outputs.get('plan_path')!r}")
        if self.branch not in self.origin_branches:
            found.append(f"{self.branch} was not pushed to origin ({self.origin_branches})")
        if "**Goal:**" not in self.plan_text:
            found.append("the pushed branch holds no plan at plan_path")
        if len(self.progress_comments) != 1 or "**Done**" not in self.progress_comments[0]:
            found.append(f"progress comments: {self.progress_comments}")
        transcripts = [
            name
            for name in self.run.home_files
            if name.startswith("amelia/runs/") and name.endswith(".jsonl")
        ]
        if not transcripts:
            found.append("no driver transcript under /github/home/amelia/runs for later steps")
        return found


def container_environment(harness: ActionHarness, event_name: str) -> dict[str, str]:
    """The harness's runner variables minus host paths: `GITHUB_*`, `INPUT_*` and the model
    connection (`ANTHROPIC_BASE_URL` → the scripted server, no retries or telemetry)."""
    unused = harness.root / "host-paths"
    host = harness.environment(event_name, unused, unused, unused)
    chosen = {
        name: value
        for name, value in host.items()
        if name.startswith(_RUNNER_VARIABLE_PREFIXES) and name not in _HOST_PATH_VARIABLES
    }
    # The runner passes RUNNER_TEMP through with the host's value, a path that is not
    # mounted in the container; a hosted runner's value keeps that true here.
    return {**chosen, "RUNNER_TEMP": HOSTED_RUNNER_TEMP}


def run_plan(image: RehearsalResult, harness: ActionHarness) -> PlanOutcome:
    """File an issue, comment `/amelia plan` on it as a writer, and run the image's
    ENTRYPOINT for that `issue_comment` event with the runner's mounts and variables."""
    number = harness.add_issue(ISSUE_TITLE, ISSUE_BODY)
    run = run_entrypoint(
        image.root,
        container_environment(harness, "issue_comment"),
        harness.workspace,
        harness.comment_event(number, "/amelia plan"),
        command=image_command(image.config),
        image_env=image.config.env,
        host_paths=[harness.origin],
    )
    branch = f"amelia/issue-{number}"
    branches = harness.origin_branches()
    try:
        plan_text = harness.origin_file(branch, run.outputs.get("plan_path", ""))
    except RuntimeError:
        plan_text = ""  # no such branch or file on origin: problems() names which
    marker = progress_marker(number)
    comments = [c for c in harness.github.comments(harness.repo, number) if marker in c]
    return PlanOutcome(
        run=run,
        issue_number=number,
        branch=branch,
        origin_branches=branches,
        plan_text=plan_text,
        progress_comments=comments,
    )
