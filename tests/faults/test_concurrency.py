"""Two `/amelia plan` runs for the same issue at once, without a workflow `concurrency`
group: two `amelia action` processes, each in its own checkout, against one origin and one
GitHub. They must end with one branch, one plan file, one progress comment, and every
commit either run linked present on origin."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, git, plan_script
from amelia.testing.github_server import Fault

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def _start_run(harness: ActionHarness, name: str, number: int) -> subprocess.Popen[str]:
    run_dir = harness.root / name
    run_dir.mkdir()
    workspace = harness.root / f"{name}-checkout"
    git(harness.root, "clone", "--quiet", str(harness.origin), str(workspace))
    event = run_dir / "event.json"
    event.write_text(json.dumps(harness.comment_event(number, "/amelia plan")), encoding="utf-8")
    env = harness.environment(
        "issue_comment",
        event,
        run_dir / "github_output",
        run_dir / "step_summary",
        extra={"GITHUB_WORKSPACE": str(workspace), "GITHUB_RUN_ID": name},
    )
    return subprocess.Popen(
        [sys.executable, "-m", "amelia.cli", "action"],
        cwd=run_dir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_two_runs_for_one_issue_at_once_end_in_one_branch_plan_and_comment(
    tmp_path: Path,
) -> None:
    with ActionHarness(tmp_path / "action", script=plan_script(probe=None)) as harness:
        number = harness.add_issue("Add a farewell", "Say goodbye too.")
        # Hold each run's first comment POST until the other's has arrived too, so each
        # found no progress comment and posts one: the race a `concurrency` group would
        # have prevented.
        harness.github.inject(
            "POST", rf"/repos/octo/app/issues/{number}/comments", *Fault.held_together(2)
        )
        runs = [_start_run(harness, name, number) for name in ("first", "second")]
        with ThreadPoolExecutor(max_workers=2) as pool:
            logs = list(pool.map(lambda p: p.communicate(timeout=240)[0], runs))

        for process, log in zip(runs, logs, strict=True):
            assert process.returncode == 0, log
        branch = f"amelia/issue-{number}"
        assert harness.origin_branches() == sorted(["main", branch])
        plans = [f for f in harness.origin_files(branch) if f.startswith("docs/plans/")]
        assert len(plans) == 1, plans
        assert "**Goal:**" in harness.origin_file(branch, plans[0])
        progress = [
            body
            for body in harness.github.comments(harness.repo, number)
            if progress_marker(number) in body
        ]
        assert len(progress) == 1, progress
        posts = harness.github.requests_to("POST", rf"/repos/octo/app/issues/{number}/comments")
        deletes = harness.github.requests_to("DELETE", r"/repos/octo/app/issues/comments/\d+")
        assert (len(posts), len(deletes)) == (2, 1)  # both posted; the younger was removed
        assert "**Done**" in progress[0]

        # No lost commit: every commit any run linked anywhere is part of origin's branch.
        bodies = [
            str(r.body.get("body", ""))
            for r in harness.github.requests
            if r.method in ("POST", "PATCH") and isinstance(r.body, dict)
        ]
        linked = {sha for body in bodies for sha in re.findall(r"/blob/([0-9a-f]{40})/", body)}
        assert linked
        for sha in linked:
            harness.origin_git("merge-base", "--is-ancestor", sha, branch)
        # Pushed, never forced: the branch is one line of history on top of main.
        merges = harness.origin_git("rev-list", "--merges", f"main..{branch}").split()
        assert merges == []
