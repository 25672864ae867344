"""What GitHub would refuse in a push, run in-process against an origin that refuses pushes
as GitHub does (a `proc-receive` hook answering in GitHub's words,
`amelia.testing.github_push_rules`): a file over 100 MB is held back and the rest pushed,
and a secret GitHub's push protection finds ends the run with GitHub's words, the patch
saved where an upload step keeps it, and nothing secret posted. A workflow file the job's
token may not push is held back through the real entry point, also with the agents as
another user, in `tests/e2e/action/test_push_refusals_action.py`."""

from __future__ import annotations

import json
from typing import Any

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, ActionRun, plan_agents
from amelia.testing.github_push_rules import pushes_seen, refuse_like_github
from amelia.testing.scripted_agents import AgentTurn, final_result, say, shell, write_file

BRANCH = "amelia/issue-1"
GREET = 'def greet_all(names: list[str]) -> str:\n    return ", ".join(names)\n'
BIG = "data/model.bin"
BIG_BYTES = 101 * 1024 * 1024
VENDOR_KEY = "acme_live_" + "4c1e9b7f0a2d8e6c3b5a7f9e1d0c2b4a"
"""A key GitHub's push protection knows and amelia's own search does not."""
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "none",
    "summary": "greet_all looks right",
    "comments": [],
}


def _implement(action: ActionHarness, developer: list[AgentTurn]) -> ActionRun:
    reviewer: list[AgentTurn] = [[final_result(**APPROVED)], [say("ok")]]
    action.agents = plan_agents(probe=None, roles={"developer": developer, "reviewer": reviewer})
    number = action.add_planned_issue("A greeting helper", "Add greet_all().")
    return action.run_in_process(
        "issue_comment",
        action.comment_event(number, "/amelia implement"),
        inputs={"review_event": "AUTO"},
    )


def _progress(action: ActionHarness) -> str:
    (progress,) = [c for c in action.github.comments(action.repo, 1) if progress_marker(1) in c]
    return progress


def test_a_file_over_100_mb_is_held_back_and_the_rest_pushed(action: ActionHarness) -> None:
    refuse_like_github(action.origin)
    make = f"mkdir -p data && head -c {BIG_BYTES} /dev/zero > {BIG}"
    result = _implement(
        action,
        [
            [write_file("src/greet.py", GREET)],
            [shell(make)],
            [say("Added src/greet.py and the model")],
        ],
    )

    assert result.exit_code == 0, result.stdout + result.stderr
    assert [line for line in pushes_seen(action.origin) if "refused" in line] == []
    assert action.origin_file(BRANCH, "src/greet.py") == GREET
    assert BIG not in action.origin_files(BRANCH)
    (pull,) = action.github.pulls(action.repo)
    body = pull["body"]
    assert (
        f"`{BIG}`: too large for GitHub (101.00 MiB, 105,906,176 bytes; GitHub refuses "
        "files over 100 MiB, 104,857,600 bytes" in body
    )
    saved = action.runner_temp / "amelia-artifacts" / "4242" / "held-back" / "files" / BIG
    assert saved.stat().st_size == BIG_BYTES
    assert f"too large to show. amelia saved it as `{saved}`" in body
    assert len(body) < 65_536
    assert f"`{BIG}`" in _progress(action)
    (review,) = action.github.reviews(action.repo, pull["number"])
    assert review["state"] == "COMMENTED" and f"`{BIG}` (over 100 MiB)" in review["body"]


def test_a_secret_githubs_push_protection_finds_fails_the_run_and_keeps_the_patch(
    action: ActionHarness,
) -> None:
    refuse_like_github(action.origin, secrets={"Acme Live Key": r"acme_live_[0-9a-f]{32}"})
    result = _implement(
        action,
        [
            [write_file("src/greet.py", GREET)],
            [write_file("src/settings.py", f'ACME_KEY = "{VENDOR_KEY}"\n')],
            [say("Added src/greet.py and settings")],
        ],
    )

    assert result.exit_code == 1, result.stdout + result.stderr
    assert result.outputs["conclusion"] == "failure"
    assert len([line for line in pushes_seen(action.origin) if "refused" in line]) == 1
    error = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert len(error) == 1 and "GH009: Secrets detected! This push failed." in error[0]
    assert "path: src/settings.py:1" in error[0]
    patch = action.runner_temp / "amelia-artifacts" / "4242" / "unpushed.patch"
    saved = patch.read_text(encoding="utf-8")
    assert "+def greet_all" in saved and "src/settings.py" in saved
    assert VENDOR_KEY not in saved
    # The summary says where the patch is and how to keep it, without showing it.
    assert str(patch) in result.summary and "actions/upload-artifact" in result.summary
    assert "+def greet_all" not in result.summary
    for request in [*result.github_requests, *action.github.requests]:
        assert VENDOR_KEY not in json.dumps(request.body)
    assert VENDOR_KEY not in action.github_text()
    assert VENDOR_KEY not in result.summary
    assert action.origin_branches() == [BRANCH, "main"]
    assert "src/greet.py" not in action.origin_files(BRANCH)
    assert action.github.pulls(action.repo) == []
