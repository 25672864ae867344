"""A pull request's review recorded on the checkout actions/checkout makes for a
`pull_request` event (HEAD detached at GitHub's merge commit, which is on no branch of
origin) replays offline: the checkout is rebuilt at that commit with its remote-tracking
ref, the replay's origin serves the pull's head as GitHub does (`refs/pull/<n>/head`), and
the review comes out the same. So does a fork's, whose head is reviewed as data in a
directory of its own, which Claude Code names its project after, and one whose reviewer
calls an MCP server that takes a secret of the `mcp_secrets` input."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

import pytest

from amelia.replay.format import load_recording
from amelia.replay.player import replay
from amelia.testing.action_harness import ActionHarness, git, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from tests.e2e.action.test_mcp_action import (
    ANSWER,
    LOOKUP,
    RUN_AS_ONE_USER,
    SECRETS,
    VERDICT,
    alive,
    docs_config,
)
from tests.e2e.action.test_review_action import FAREWELL_LINES, review_script

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def test_a_review_of_the_merge_checkout_replays_with_the_same_review(tmp_path: Path) -> None:
    with ActionHarness(tmp_path / "action", script=review_script()) as harness:
        number, event = harness.open_pull("feature", {"greeter/core.py": FAREWELL_LINES})
        merge = harness.check_out_pull_merge(number, "feature")
        reviewed = harness.run_engine("pull_request", event)
        assert reviewed.exit_code == 0, reviewed.stdout + reviewed.stderr
        assert reviewed.outputs["verdict"] == "changes_requested"
        (posted,) = harness.github.reviews(harness.repo, number)
        origin_url = harness.origin_url
    recording = harness.runner_temp / "amelia" / "runs" / reviewed.outputs["recording"]
    start = load_recording(recording).manifest.checkout
    assert start is not None and (start.head, start.branch) == (merge, None)
    assert start.remotes == {f"pull/{number}/merge": merge}
    assert start.fetched == [event["pull_request"]["head"]["sha"]]
    # Every server is stopped from here on.

    result = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert result.same, result.report()
    assert result.review_bodies == [posted["body"]]
    checkout = result.checkout
    assert git(checkout, "rev-parse", f"refs/remotes/pull/{number}/merge").strip() == merge
    # As the run's checkout had it (amelia's own git talks to the replay's origin).
    assert git(checkout, "remote", "get-url", "origin").strip() == origin_url


def test_a_forks_review_of_its_head_as_data_replays_with_the_same_review(
    tmp_path: Path,
) -> None:
    with ActionHarness(tmp_path / "action", script=review_script()) as harness:
        number, event = harness.open_fork_pull({"greeter/core.py": FAREWELL_LINES})
        inputs = {"review_forks": "true", "review_event": "AUTO"}
        reviewed = harness.run_engine("pull_request_target", event, inputs=inputs)
        assert reviewed.exit_code == 0, reviewed.stdout + reviewed.stderr
        (posted,) = harness.github.reviews(harness.repo, number)
        assert "Fork review:" in posted["body"]
    recording = harness.runner_temp / "amelia" / "runs" / reviewed.outputs["recording"]

    result = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert result.same, result.report()
    assert result.review_bodies == [posted["body"]]


def test_a_review_with_an_mcp_servers_secret_replays_with_the_same_review(
    tmp_path: Path,
) -> None:
    """The recording keeps the secret's name (`DOCS_API_KEY=***`), so the replay can
    start the server with a stand-in for its value."""
    pid_file = tmp_path / "docs-server.pid"
    reviewer: Sequence[Turn] = [
        [tool_use(LOOKUP, {"topic": "greet"}, id="toolu_lookup")],
        [tool_use("StructuredOutput", VERDICT)],
        [text("ok")],
    ]
    with ActionHarness(tmp_path / "action", script=plan_script(roles={"reviewer": reviewer})) as h:
        config = docs_config(pid_file, "    reviewer: {docs: [lookup]}\n")
        h.commit_files("main", {".github/amelia.yml": config})
        number, event = h.open_pull("feature", {"greeter/farewell.py": "def farewell(): ...\n"})
        reviewed = h.run_engine("pull_request", event, inputs=SECRETS, env=RUN_AS_ONE_USER)
        assert reviewed.exit_code == 0, reviewed.stdout + reviewed.stderr
        assert ANSWER in reviewed.model_text()
        (posted,) = h.github.reviews(h.repo, number)
    recording = h.runner_temp / "amelia" / "runs" / reviewed.outputs["recording"]
    environment = load_recording(recording).manifest.environment
    assert environment["INPUT_MCP_SECRETS"] == "DOCS_API_KEY=***"

    result = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert result.same, result.report()
    assert result.review_bodies == [posted["body"]]
    assert not alive(pid_file)
