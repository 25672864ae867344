"""A recorded `/amelia implement` run replayed offline: the servers are stopped, the replay
makes the same commit trees and review body; a changed prompt makes it stop at the first
request that differs, naming it and showing the change. The recorded implement run is `amelia
action` as a subprocess; the plan before it, the engine in the test's process (`run_engine`)."""

from __future__ import annotations

import io
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.agents import prompts, reviewer
from amelia.replay.format import load_recording
from amelia.replay.player import replay
from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.anthropic_script import ScriptFunction, Turn, text, tool_use
from tests.e2e.replay.conftest import AgentUser
from tests.image_user import IMAGE_USER

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

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
        }
    ],
}


def implement_script(workspace: Path) -> ScriptFunction:
    developer: list[Turn] = [
        [
            tool_use(
                "Write",
                {"file_path": str(workspace / "greeter" / "farewell.py"), "content": FAREWELL},
            )
        ],
        [tool_use("Bash", {"command": "ls greeter", "description": "Look"})],
        [text("Added greeter/farewell.py")],
    ]
    reviewer: list[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
    return plan_script(roles={"developer": developer, "reviewer": reviewer})


def _recorded_implement(root: Path, agent_user: str = "none") -> Path:
    """Plan, then implement with recording on; returns the implement run's recording."""
    script = implement_script(root / "workspace")
    with ActionHarness(root, script=script, agent_user=agent_user) as harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; say goodbye too.")
        planned = harness.run_engine("issue_comment", harness.comment_event(number, "/amelia plan"))
        assert planned.exit_code == 0, planned.stdout + planned.stderr
        harness.fresh_checkout()
        done = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))
        assert done.exit_code == 0, done.stdout + done.stderr
        assert done.outputs["verdict"] == "approved"
        run_id = done.outputs["recording"]
        assert f"**Recording** `{run_id}`" in done.summary
        assert (
            f"gh run download 4242 --name amelia-recording-{run_id} --dir {run_id}`" in done.summary
        )
        (review,) = harness.github.reviews(harness.repo, int(done.outputs["pr_number"]))
        branch = done.outputs["branch"]
        tree = harness.origin_git("rev-parse", f"{branch}^{{tree}}").strip()
    # Every server is stopped from here on.
    recording = harness.runner_temp / "amelia" / "runs" / run_id
    manifest = load_recording(recording).manifest
    assert manifest.outcome.commits[-1].tree == tree
    assert manifest.outcome.exit_code == 0
    calls = load_recording(recording).calls
    recorded_reviews = [c.arguments["body"] for c in calls if c.operation == "create_review"]
    assert recorded_reviews == [review["body"]]
    return recording


@pytest.fixture(scope="module")
def recordings(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], Path]]:
    """The implement run's recording for an agent user, recorded once for this module's
    tests: replaying reads a recording and writes only in the directory it replays in, so
    the tests that replay one recording in different ways share it."""
    made: dict[str, Path] = {}
    reachable: list[Path] = []

    def recording(agent_user: str) -> Path:
        if agent_user not in made:
            if agent_user == IMAGE_USER:
                # A directory the agent user can enter (pytest's temporary root is root's).
                base = Path(tempfile.mkdtemp(prefix="amelia-replay-recording-"))
                base.chmod(0o755)
                reachable.append(base)
            else:
                base = tmp_path_factory.mktemp(f"recorded-{agent_user}")
            made[agent_user] = _recorded_implement(base / "action", agent_user)
        return made[agent_user]

    yield recording
    for base in reachable:
        shutil.rmtree(base, ignore_errors=True)


def test_replay_reproduces_the_commit_trees_and_review_without_servers(
    agent_user: AgentUser,
    recordings: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    base = agent_user.base
    recording = recordings(agent_user.name)
    out = io.StringIO()

    result = replay(recording, repo=base / "replay", stream=out)

    assert result.divergence is None, result.report()
    assert result.differences == [], result.report()
    assert result.exit_code == 0
    recorded = load_recording(recording).manifest.outcome
    assert [c.tree for c in result.commits] == [c.tree for c in recorded.commits]
    (body,) = result.review_bodies
    assert "farewell mirrors greet" in body
    report = out.getvalue()
    assert "the same outcome as the recorded run" in report
    assert report.endswith(
        f"the replay's checkout, origin and writes are in {result.checkout.parent}\n"
    )
    assert "[replay] would create review" in report
    # The replay's pushes landed in its own origin on disk.
    assert (base / "replay" / "origin.git").is_dir()
    if agent_user.name == IMAGE_USER:
        assert f"agents run as user {IMAGE_USER}, uid" in capfd.readouterr().err
        # Without --repo, as root: a new directory the agent user can enter.
        again = replay(recording, stream=io.StringIO())
        try:
            assert again.same, again.report()
            assert again.checkout.parent.stat().st_mode & 0o005 == 0o005
        finally:
            shutil.rmtree(again.checkout.parent, ignore_errors=True)


def test_a_changed_prompt_stops_the_replay_at_the_first_divergent_request(
    tmp_path: Path,
    recordings: Callable[[str], Path],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    recording = recordings("none")
    changed = prompts.REVIEWER_INSTRUCTIONS.replace(
        "You are a meticulous senior code reviewer.",
        "You are a meticulous senior code reviewer.\nAlways check the tests first.",
    )
    # The template as the reviewer reads it: a new line in its instructions.
    monkeypatch.setattr(reviewer, "REVIEWER_INSTRUCTIONS", changed)
    out = io.StringIO()

    result = replay(recording, repo=tmp_path / "replay", stream=out)

    assert result.divergence is not None
    assert result.divergence.agent == "reviewer"
    assert result.divergence.turn == 1
    assert "+system[2].text: Always check the tests first." in result.divergence.diff
    assert not result.same
    report = out.getvalue()
    assert "diverges at model request" in report and "reviewer, turn 1" in report
    # The difference is shown once, in the report; the run's log names the request only.
    logged = capfd.readouterr()
    assert "Always check the tests first." not in logged.out + logged.err
    assert "diverges at model request" in logged.out + logged.err
    assert report.count("+system[2].text: Always check the tests first.") == 1
    recorded = json.loads((recording / "recording.json").read_text())
    assert recorded["outcome"]["exit_code"] == 0
