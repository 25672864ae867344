"""`amelia action` end to end against an origin that refuses pushes as GitHub does (a
`proc-receive` hook answering in GitHub's words, `amelia.testing.github_push_rules`), with
the real Claude Code CLI as developer and reviewer.

An issue that asks for a greeting helper and a CI workflow: the job's token may not change
workflows, so the workflow file is held back before the push, the rest is pushed, the
draft opens naming the file, showing its change and the permission that would let amelia
push it, and an approval under `review_event: AUTO` is posted as a comment. A file over
100 MB is held back the same way. A secret GitHub's push protection finds ends the run
with GitHub's words, the patch saved where an upload step keeps it, and nothing secret
posted. The first case also runs with the agents as another user, as in the container.
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


def test_implement_with_a_file_over_100_mb_holds_it_back(tmp_path: Path) -> None:
    root = tmp_path / "action"
    make = f"mkdir -p data && head -c {BIG_BYTES} /dev/zero > {BIG}"
    developer: list[Turn] = [
        _write(root / "workspace", "src/greet.py", GREET),
        [tool_use("Bash", {"command": make, "description": "Write the model file"})],
        [text("Added src/greet.py and the model")],
    ]
    with ActionHarness(root, script=_script(developer)) as harness:
        refuse_like_github(harness.origin)

        result = _implement(harness)

        assert result.exit_code == 0, result.stdout + result.stderr
        assert [line for line in pushes_seen(harness.origin) if "refused" in line] == []
        assert harness.origin_file(BRANCH, "src/greet.py") == GREET
        assert BIG not in harness.origin_files(BRANCH)
        (pull,) = harness.github.pulls(harness.repo)
        body = pull["body"]
        assert (
            f"`{BIG}`: too large for GitHub (101.00 MiB, 105,906,176 bytes; GitHub refuses "
            "files over 100 MiB, 104,857,600 bytes" in body
        )
        saved = harness.runner_temp / "amelia-artifacts" / "4242" / "held-back" / "files" / BIG
        assert saved.stat().st_size == BIG_BYTES
        assert f"too large to show. amelia saved it as `{saved}`" in body
        assert len(body) < 65_536
        assert f"`{BIG}`" in _progress(harness)
        (review,) = harness.github.reviews(harness.repo, pull["number"])
        assert review["state"] == "COMMENTED" and f"`{BIG}` (over 100 MiB)" in review["body"]


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
