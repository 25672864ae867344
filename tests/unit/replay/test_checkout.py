"""The git side of a recording: which commits a run left, what origin held as the run saw
it, and the checkout rebuilt."""

from __future__ import annotations

import subprocess
from pathlib import Path

from amelia.git import Git
from amelia.replay.checkout import (
    origin_as_seen,
    origin_logged,
    pack_start,
    pushed_commits,
    rebuild,
    starting_checkout,
)
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


def _behind_origin(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """A checkout whose origin/main is a commit behind origin's main: (origin, checkout,
    the checkout's origin/main, origin's main)."""
    origin = init_repo(tmp_path / "origin", {"README.md": "hello\n"})
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    (origin / "amelia.yml").write_text("mcp: {}\n", encoding="utf-8")
    git(origin, "add", "amelia.yml")
    git(origin, *IDENTITY, "commit", "-q", "-m", "Configure")
    old = git(checkout, "rev-parse", "origin/main").strip()
    return origin, checkout, old, git(origin, "rev-parse", "main").strip()


def test_a_branch_the_run_fetched_anew_is_on_origin_as_the_run_first_fetched_it(
    tmp_path: Path,
) -> None:
    """The run's checkout was behind origin; the run fetched main again (as a review
    fetches the base branch), then once more after a later push. Its reflog holds no entry
    for the checkout's start (made without one, as some checkouts are)."""
    origin, checkout, old, newer = _behind_origin(tmp_path)
    git(checkout, "reflog", "expire", "--expire=now", "--all")
    amelias = Git(checkout)
    start = starting_checkout(amelias, shown_path=str(checkout))
    logged = origin_logged(amelias)
    assert start is not None and start.origin == {"main": old}
    # A run that fetched nothing new saw origin as its checkout had it.
    assert origin_as_seen(amelias, start, logged=logged) == {"main": old}
    git(checkout, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")
    (origin / "later.txt").write_text("later\n", encoding="utf-8")
    git(origin, "add", "later.txt")
    git(origin, *IDENTITY, "commit", "-q", "-m", "Later")
    git(checkout, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")

    assert origin_as_seen(amelias, start, logged=logged) == {"main": newer}


def test_the_rebuilt_origin_serves_what_the_run_fetched_and_the_checkout_tracks_the_start(
    tmp_path: Path,
) -> None:
    _, checkout, old, newer = _behind_origin(tmp_path)
    amelias = Git(checkout)
    start = starting_checkout(amelias, shown_path=str(checkout))
    assert start is not None
    git(checkout, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")
    start = start.model_copy(
        update={"origin": origin_as_seen(amelias, start), "tracking": start.origin}
    )
    pack_start(amelias, start, tmp_path / "checkout.pack")

    replayed_origin, replayed = rebuild(tmp_path / "checkout.pack", start, tmp_path / "replay")

    assert git(replayed_origin, "rev-parse", "refs/heads/main").strip() == newer
    assert git(replayed, "rev-parse", "refs/remotes/origin/main").strip() == old
    assert git(replayed, "rev-parse", "HEAD").strip() == start.head == old


def test_the_reflogs_of_every_branch_origin_has_are_counted_at_the_start(tmp_path: Path) -> None:
    """In one git process for all of them; a branch written without a reflog has none."""
    origin = init_repo(tmp_path / "origin", {"README.md": "hello\n"})
    for name in ("a", "b", "c"):
        git(origin, "branch", name)
    checkout = tmp_path / "checkout"
    git(tmp_path, "init", "-q", str(checkout))
    git(checkout, "remote", "add", "origin", str(origin))
    git(checkout, "fetch", "-q", "origin")
    first = git(checkout, "rev-parse", "origin/main").strip()
    unlogged = ["-c", "core.logAllRefUpdates=false", "update-ref", "refs/remotes/origin/d", first]
    git(checkout, *unlogged)
    git(origin, *IDENTITY, "commit", "-q", "--allow-empty", "-m", "Later")
    git(checkout, "fetch", "-q", "origin", "+refs/heads/main:refs/remotes/origin/main")

    assert origin_logged(Git(checkout)) == {"a": 1, "b": 1, "c": 1, "main": 2}


def test_the_rebuilt_checkout_names_no_branch_it_did_not_track(tmp_path: Path) -> None:
    """The run's checkout tracked only its branch; origin's default branch, which the run
    fetched, is no remote-tracking ref of the rebuilt one, and origin/HEAD names nothing
    broken."""
    _, checkout, old, _ = _behind_origin(tmp_path)
    git(checkout, "checkout", "-q", "-b", "feature")
    start = starting_checkout(Git(checkout), shown_path=str(checkout))
    assert start is not None
    start = start.model_copy(
        update={
            "branch": "feature",
            "origin": {"main": old, "feature": old},
            "tracking": {"feature": old},
            "default_branch": "main",
        }
    )
    pack_start(Git(checkout), start, tmp_path / "checkout.pack")

    _, replayed = rebuild(tmp_path / "checkout.pack", start, tmp_path / "replay")

    refs = git(replayed, "for-each-ref", "--format=%(refname)", "refs/remotes/").split()
    assert refs == ["refs/remotes/origin/feature"]
    # origin/HEAD named origin/main, which is gone: no origin/HEAD, as actions/checkout
    # leaves none.
    head = ["git", "symbolic-ref", "-q", "refs/remotes/origin/HEAD"]
    assert subprocess.run(head, cwd=replayed, capture_output=True, check=False).returncode == 1
