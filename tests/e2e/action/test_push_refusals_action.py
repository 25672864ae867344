"""`amelia action` end to end against an origin that refuses pushes as GitHub does (a
`proc-receive` hook answering in GitHub's words, `amelia.testing.github_push_rules`), with
the real Claude Code CLI as developer.

A secret GitHub's push protection finds (and amelia's own search does not know) ends the
run with GitHub's words, the patch saved where an upload step keeps it, the lines GitHub
named masked in it, and nothing secret posted.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import ScriptFunction, Turn, text, tool_use
from amelia.testing.github_push_rules import pushes_seen, refuse_like_github

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

BRANCH = "amelia/issue-1"
GREET = 'def greet_all(names: list[str]) -> str:\n    return ", ".join(names)\n'
VENDOR_KEY = "acme_live_" + "4c1e9b7f0a2d8e6c3b5a7f9e1d0c2b4a"
"""A key GitHub's push protection knows and amelia's own search does not."""
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "none",
    "summary": "greet_all looks right",
    "comments": [],
}


def _script(developer: list[Turn]) -> ScriptFunction:
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    return plan_script(probe=None, roles={"developer": developer, "reviewer": reviewer})


def _write(workspace: Path, name: str, content: str) -> Turn:
    return [tool_use("Write", {"file_path": str(workspace / name), "content": content})]


def _implement(harness: ActionHarness) -> ActionRun:
    number = harness.add_planned_issue(
        "A greeting helper and a CI workflow", "Add greet_all() and a CI workflow running pytest."
    )
    return harness.run(
        "issue_comment",
        harness.comment_event(number, "/amelia implement"),
        inputs={"review_event": "AUTO"},
    )


def test_a_secret_githubs_push_protection_finds_fails_the_run_and_keeps_the_patch(
    tmp_path: Path,
) -> None:
    root = tmp_path / "action"
    settings = f'ACME_KEY = "{VENDOR_KEY}"\n'
    developer: list[Turn] = [
        _write(root / "workspace", "src/greet.py", GREET),
        _write(root / "workspace", "src/settings.py", settings),
        [text("Added src/greet.py and settings")],
    ]
    with ActionHarness(root, script=_script(developer)) as harness:
        refuse_like_github(harness.origin, secrets={"Acme Live Key": r"acme_live_[0-9a-f]{32}"})

        result = _implement(harness)

        assert result.exit_code == 1, result.stdout + result.stderr
        assert result.outputs["conclusion"] == "failure"
        assert len([line for line in pushes_seen(harness.origin) if "refused" in line]) == 1
        error = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
        assert len(error) == 1 and "GH009: Secrets detected! This push failed." in error[0]
        assert "path: src/settings.py:1" in error[0]
        patch = harness.runner_temp / "amelia-artifacts" / "4242" / "unpushed.patch"
        saved = patch.read_text(encoding="utf-8")
        assert "+def greet_all" in saved and "src/settings.py" in saved
        assert VENDOR_KEY not in saved
        # The summary says where the patch is and how to keep it, without showing it.
        assert str(patch) in result.summary and "actions/upload-artifact" in result.summary
        assert "+def greet_all" not in result.summary
        for request in harness.github.requests:
            assert VENDOR_KEY not in json.dumps(request.body)
        assert VENDOR_KEY not in result.summary
        assert harness.origin_branches() == [BRANCH, "main"]
        assert "src/greet.py" not in harness.origin_files(BRANCH)
        assert harness.github.pulls(harness.repo) == []
