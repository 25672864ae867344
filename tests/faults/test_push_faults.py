"""git push faults: someone pushed the branch meanwhile, or origin cannot be reached.

A push rejected as non-fast-forward is fetched, rebased and pushed again, keeping both
sides' commits. A push that keeps failing ends the run with exit 1, and the unpushed
commits are saved as a patch under `$RUNNER_TEMP/amelia-artifacts/<run id>/` and shown in
the job summary; the failure comment names the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.testing.action_harness import git
from amelia.testing.github_server import Fault
from tests.faults.conftest import EngineBench

pytestmark = [pytest.mark.timeout(120)]

BRANCH = "amelia/issue-1"


def _push_as_someone_else(bench: EngineBench, path: str, content: str, new: bool) -> str:
    """Clone origin elsewhere, commit `path` on BRANCH and push it; returns the sha."""
    other = bench.harness.root / "someone-else"
    if not other.exists():
        git(bench.harness.root, "clone", "--quiet", str(bench.harness.origin), str(other))
        git(other, "config", "user.name", "Someone Else")
        git(other, "config", "user.email", "someone@example.com")
    git(other, "fetch", "--quiet", "origin")
    if new:
        git(other, "checkout", "--quiet", "-B", BRANCH, "origin/main")
    else:
        git(other, "checkout", "--quiet", "-B", BRANCH, f"origin/{BRANCH}")
    target = other / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    git(other, "add", path)
    git(other, "commit", "--quiet", "-m", f"Edit {path}")
    git(other, "push", "--quiet", "origin", f"{BRANCH}:{BRANCH}")
    return git(other, "rev-parse", "HEAD").strip()


def test_push_rejected_because_someone_pushed_meanwhile_is_rebased(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    _push_as_someone_else(bench, "NOTES.md", "started\n", new=True)
    theirs: list[str] = []
    bench.during_architect = lambda: theirs.append(
        _push_as_someone_else(bench, "NOTES.md", "started\nmore\n", new=False)
    )

    run = bench.run_plan()

    assert run.exit_code == 0, run.stdout
    h = bench.harness
    log = h.origin_git("log", "--format=%H %s", BRANCH).splitlines()
    assert any(line.startswith(theirs[0]) for line in log)  # their commit survived
    assert log[0].split(" ", 1)[1].startswith("Plan issue #1")  # ours on top, not forced
    assert h.origin_file(BRANCH, "NOTES.md") == "started\nmore\n"
    assert "**Goal:**" in h.origin_file(BRANCH, run.outputs["plan_path"])
    (progress,) = bench.progress_comments()
    head = h.origin_git("rev-parse", BRANCH).strip()
    assert f"/blob/{head}/" in progress  # the link points at the commit that was pushed


def _artifacts(bench: EngineBench) -> Path:
    return bench.harness.runner_temp / "amelia-artifacts" / "4242"


def _assert_work_saved(summary: str, progress: str, saved: Path) -> Path:
    patch = saved / "unpushed.patch"
    assert patch.is_file()
    assert "**Goal:**" in patch.read_text(encoding="utf-8")
    plans = list((saved / "files" / "docs" / "plans").glob("*issue-1-*.md"))
    assert len(plans) == 1 and "**Goal:**" in plans[0].read_text(encoding="utf-8")
    assert "### Unpushed work on `amelia/issue-1`" in summary and "+**Goal:**" in summary
    assert str(patch) in summary
    assert "**Failed**" in progress and str(patch) in progress
    return patch


def test_unreachable_origin_keeps_the_plan_as_a_patch(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    # Once the architect runs, origin drops every push's connection without an answer.
    # (Rewriting the checkout's `origin` would not do: amelia pushes to the repository's
    # URL on the server, and puts back whatever is written into `.git/config` meanwhile.)
    drops = [Fault(kind="reset") for _ in range(50)]
    bench.during_architect = lambda: bench.github.inject(
        "POST", r"/octo/app/git-receive-pack", *drops
    )

    run = bench.run_plan()

    assert run.exit_code == 1, run.stdout
    assert "push of amelia/issue-1 failed after 3 attempt(s)" in run.summary
    (progress,) = bench.progress_comments()
    patch = _assert_work_saved(run.summary, progress, _artifacts(bench))
    assert "/blob/" not in progress  # no link to a commit origin does not have
    assert bench.harness.origin_branches() == ["main"]

    # The saved patch really restores the work on a fresh clone.
    restore = bench.harness.root / "restore"
    git(bench.harness.root, "clone", "--quiet", str(bench.harness.origin), str(restore))
    git(restore, "-c", "user.name=r", "-c", "user.email=r@example.com", "am", "--quiet", str(patch))
    assert "**Goal:**" in (restore / _plan_path_for_today()).read_text(encoding="utf-8")


def test_push_that_cannot_be_rebased_keeps_the_plan_as_a_patch(bench: EngineBench) -> None:
    """Someone pushed a different plan to the same path: no force push, the work is saved."""
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    bench.during_architect = lambda: _push_as_someone_else(
        bench, _plan_path_for_today(), "# Their plan\n", new=True
    )

    chosen = bench.harness.root / "kept"  # AMELIA_ARTIFACTS_DIR moves the saved work
    run = bench.run_plan(extra={"AMELIA_ARTIFACTS_DIR": str(chosen)})

    assert run.exit_code == 1, run.stdout
    assert "cannot rebase amelia/issue-1" in run.summary
    (progress,) = bench.progress_comments()
    _assert_work_saved(run.summary, progress, chosen / "4242")
    assert not _artifacts(bench).exists()
    assert bench.harness.origin_file(BRANCH, _plan_path_for_today()) == "# Their plan\n"


def _plan_path_for_today() -> str:
    from datetime import date

    return f"docs/plans/{date.today().isoformat()}-issue-1-add-a-farewell.md"
