"""The git side of a recording: which commits a run left, and the checkout rebuilt."""

from __future__ import annotations

from pathlib import Path

from amelia.git import Git
from amelia.replay.checkout import pushed_commits, starting_checkout
from tests.git_helpers import IDENTITY, git, init_repo


def test_a_dry_runs_commits_are_its_local_branchs_though_origin_has_the_branch(
    tmp_path: Path,
) -> None:
    """A dry run pushes nothing: the plan's branch on origin keeps the plan commit, and the
    local branch of the same name holds the run's commit on top of it."""
    origin = init_repo(tmp_path / "origin", {"README.md": "hello\n"})
    git(origin, "checkout", "-q", "-b", "amelia/issue-1")
    (origin / "plan.md").write_text("# Plan\n", encoding="utf-8")
    git(origin, "add", "plan.md")
    git(origin, *IDENTITY, "commit", "-q", "-m", "Plan issue #1")
    git(origin, "checkout", "-q", "main")
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    amelias = Git(checkout)
    start = starting_checkout(amelias, shown_path=str(checkout))
    assert start is not None and "amelia/issue-1" in start.origin
    git(checkout, "checkout", "-q", "amelia/issue-1")
    (checkout / "farewell.py").write_text("def farewell() -> None: ...\n", encoding="utf-8")
    git(checkout, "add", "farewell.py")
    git(checkout, *IDENTITY, "commit", "-q", "-m", "Implement issue #1")
    tree = git(checkout, "rev-parse", "HEAD^{tree}").strip()

    (commit,) = pushed_commits(amelias, start, local=True)

    assert (commit.branch, commit.tree, commit.subject) == (
        "amelia/issue-1",
        tree,
        "Implement issue #1",
    )
    assert pushed_commits(amelias, start, local=False) == []
