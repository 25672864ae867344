"""`amelia action` end to end against an origin that refuses pushes as GitHub does (a
`proc-receive` hook answering in GitHub's words, `amelia.testing.github_push_rules`), with
the real Claude Code CLI as developer and reviewer.

An issue that asks for a greeting helper and a CI workflow: the job's token may not change
workflows, so the workflow file is held back before the push, the rest is pushed, the
draft opens naming the file, showing its change and the permission that would let amelia
push it, and an approval under `review_event: AUTO` is posted as a comment. It also runs
with the agents as another user, as in the container. A file over 100 MB held back the
same way and a secret GitHub's push protection finds are specified in-process in
`tests/modes/test_push_refusals.py`.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import ScriptFunction, Turn, text, tool_use
from amelia.testing.github_push_rules import pushes_seen, refuse_like_github
from tests.git_helpers import git

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

BRANCH = "amelia/issue-1"
WORKFLOW = ".github/workflows/ci.yml"
WORKFLOW_TEXT = (
    "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n      - run: python -m pytest\n"
)
GREET = 'def greet_all(names: list[str]) -> str:\n    return ", ".join(names)\n'
BIG = "data/model.bin"
BIG_BYTES = 101 * 1024 * 1024
VENDOR_KEY = "acme_live_" + "4c1e9b7f0a2d8e6c3b5a7f9e1d0c2b4a"
"""A key GitHub's push protection knows and amelia's own search does not."""
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "none",
    "summary": "greet_all and the CI workflow look right",
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


def _progress(harness: ActionHarness) -> str:
    (progress,) = [c for c in harness.github.comments(harness.repo, 1) if progress_marker(1) in c]
    return progress


def _shown_patch(body: str) -> str:
    start = body.index("```diff\n") + len("```diff\n")
    return body[start : body.index("\n```", start)] + "\n"


def _apply_on_branch(harness: ActionHarness, patch: str) -> Path:
    clone = harness.root / f"maintainer-{len(list(harness.root.glob('maintainer-*')))}"
    git(harness.root, "clone", "--quiet", "--branch", BRANCH, str(harness.origin), str(clone))
    (clone / "held-back.patch").write_text(patch, encoding="utf-8")
    git(clone, "apply", "held-back.patch")
    return clone


def _unused_id() -> int:
    while True:
        candidate = random.randint(40_000, 59_999)
        try:
            pwd.getpwuid(candidate)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(candidate)
        except KeyError:
            return candidate


@pytest.fixture(params=["none", "agent-user"])
def agent_user(request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    """`AMELIA_AGENT_USER` and a directory for the harness: `none`, or (as root) an uid and
    gid no process uses, with a directory every uid can enter."""
    if request.param == "none":
        base = Path(tempfile.mkdtemp(prefix="amelia-held-back-"))
        yield "none", base
    else:
        if os.geteuid() != 0:
            pytest.skip("only root can switch agents to another user")
        base = Path(tempfile.mkdtemp(prefix="amelia-held-back-"))
        base.chmod(0o755)
        uid = _unused_id()
        yield f"{uid}:{uid}", base
    shutil.rmtree(base, ignore_errors=True)


def test_implement_with_a_workflow_file_pushes_the_rest_and_opens_the_draft(
    agent_user: tuple[str, Path],
) -> None:
    user, base = agent_user
    root = base / "action"
    workspace = root / "workspace"
    developer: list[Turn] = [
        _write(workspace, "src/greet.py", GREET),
        _write(workspace, WORKFLOW, WORKFLOW_TEXT),
        [text("Added src/greet.py and the CI workflow")],
    ]
    with ActionHarness(root, script=_script(developer), agent_user=user) as harness:
        refuse_like_github(harness.origin, workflows="app")

        result = _implement(harness)

        assert result.exit_code == 0, result.stdout + result.stderr
        assert result.outputs["conclusion"] == "success"
        if user != "none":
            uid, gid = user.split(":")
            assert f"uid {uid}, gid {gid}" in result.stdout + result.stderr
        # The held file stays in the checkout, uncommitted, for later steps.
        assert (workspace / WORKFLOW).read_text(encoding="utf-8") == WORKFLOW_TEXT
        # The one push of the work carried no workflow file: GitHub had nothing to refuse.
        seen = pushes_seen(harness.origin)
        assert [line for line in seen if line.startswith("refused")] == []
        assert harness.origin_file(BRANCH, "src/greet.py") == GREET
        assert WORKFLOW not in harness.origin_files(BRANCH)

        (pull,) = harness.github.pulls(harness.repo)
        assert pull["draft"] is True and str(pull["number"]) == result.outputs["pr_number"]
        body = pull["body"]
        assert f"`{WORKFLOW}`" in body and "`workflows` permission" in body
        assert "personal access token (classic) with the `workflow` scope" in body
        clone = _apply_on_branch(harness, _shown_patch(body))
        assert (clone / WORKFLOW).read_text(encoding="utf-8") == WORKFLOW_TEXT

        progress = _progress(harness)
        assert "**Done**" in progress and f"`{WORKFLOW}`" in progress
        assert _shown_patch(progress) == _shown_patch(body)

        # The reviewer saw the workflow file; the approval is only a comment, saying so.
        reviewer = [r for r in result.model_requests if "StructuredOutput" in json.dumps(r.body)]
        assert any("python -m pytest" in json.dumps(r.body) for r in reviewer)
        (review,) = harness.github.reviews(harness.repo, pull["number"])
        assert review["state"] == "COMMENTED"
        assert f"Not pushed: `{WORKFLOW}` (workflow file)" in review["body"]
        assert "### Not pushed" in result.summary
