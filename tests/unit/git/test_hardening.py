"""amelia's git runs no code that a repository's files name, and pushes where amelia says.

An agent works in the checkout with real tools: it can write `.git/hooks/*`, `.git/config`
(fsmonitor, textconv, signing program, credential helper, insteadOf, pushurl) and
`.gitattributes`. Every git command amelia runs afterwards must run none of it, and a
push must reach the remote amelia named, not the one the agent wrote into the config.
"""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path

import pytest

from amelia.git import (
    Git,
    collect_changes,
    commit_paths,
    diff,
    fetch_branch,
    push,
    run_git,
    switch_to_branch,
)
from tests.git_helpers import IDENTITY, git, init_repo

HOOKS = (
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-push",
    "post-checkout",
    "post-rewrite",
    "reference-transaction",
    "pre-auto-gc",
    "post-index-change",
)


def _script(path: Path, marker: Path) -> Path:
    """An executable that records that it ran (and its environment) in `marker`."""
    path.write_text(f'#!/bin/sh\necho "$0 ran" >> "{marker}"\nenv >> "{marker}"\nexit 0\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _plant_everything(repo: Path, marker: Path) -> None:
    """What an agent with a shell could leave for amelia's git to run."""
    (repo / ".gitattributes").write_text("* diff=planted\n")
    git(repo, "add", ".gitattributes")
    git(repo, *IDENTITY, "commit", "-qm", "attributes")
    hooks = repo / ".git" / "hooks"
    for name in HOOKS:
        _script(hooks / name, marker)
    planted = _script(repo.parent / "planted.sh", marker)
    other_hooks = repo.parent / "other-hooks"
    other_hooks.mkdir()
    _script(other_hooks / "pre-push", marker)
    _script(other_hooks / "post-commit", marker)
    for key, value in (
        ("core.hooksPath", str(other_hooks)),
        ("core.fsmonitor", str(planted)),
        ("commit.gpgSign", "true"),
        ("gpg.program", str(planted)),
        ("diff.external", str(planted)),
        ("diff.planted.textconv", str(planted)),
        ("diff.planted.command", str(planted)),
        ("credential.helper", f"!{planted}"),
        ("core.pager", str(planted)),
    ):
        git(repo, "config", key, value)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    seed = init_repo(tmp_path / "seed", {"README.md": "# demo\n", "app.py": "x = 1\n"})
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


@pytest.fixture
def checkout(tmp_path: Path, origin: Path) -> Path:
    clone = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    return clone


def test_no_hook_monitor_signer_or_diff_program_runs_in_amelias_commands(
    tmp_path: Path, origin: Path, checkout: Path
) -> None:
    marker = tmp_path / "ran.log"
    _plant_everything(checkout, marker)
    base = run_git(["rev-parse", "HEAD"], checkout).strip()

    switch_to_branch(checkout, "amelia/issue-1")
    (checkout / "app.py").write_text("x = 2\n")
    (checkout / "new.py").write_text("y = 1\n")
    collected = asyncio.run(collect_changes(checkout, base))
    commit_paths(checkout, ["app.py", "new.py"], "Change")
    shown = diff(checkout, base)
    push(checkout, "amelia/issue-1")

    assert not marker.exists(), marker.read_text()
    # The diffs are git's own, not a planted program's output.
    assert "+x = 2" in collected.uncommitted and "+y = 1" in collected.untracked
    assert "+x = 2" in shown
    assert git(origin, "log", "-1", "--format=%s", "amelia/issue-1").strip() == "Change"


def test_a_push_goes_to_the_url_amelia_names_not_to_a_rewritten_origin(
    tmp_path: Path, origin: Path, checkout: Path
) -> None:
    decoy = tmp_path / "decoy.git"
    git(tmp_path, "init", "-q", "--bare", str(decoy))
    elsewhere = tmp_path / "elsewhere.git"
    git(tmp_path, "init", "-q", "--bare", str(elsewhere))
    # An agent rewrites where origin points, where its pushes go, and what any URL means.
    git(checkout, "remote", "set-url", "origin", str(decoy))
    git(checkout, "remote", "set-url", "--push", "origin", str(decoy))
    git(checkout, "config", f"url.{elsewhere}.insteadOf", "/nowhere/")
    global_config = tmp_path / "amelia-global.gitconfig"
    global_config.write_text("")

    ours = Git(checkout).isolated(global_config).with_remote(str(origin))
    switch_to_branch(ours, "amelia/issue-2")
    (checkout / "app.py").write_text("x = 3\n")
    commit_paths(ours, ["app.py"], "Real")
    push(ours, "amelia/issue-2")
    tracking = fetch_branch(ours, "amelia/issue-2")

    assert git(origin, "log", "-1", "--format=%s", "amelia/issue-2").strip() == "Real"
    assert git(decoy, "for-each-ref").strip() == ""
    assert git(elsewhere, "for-each-ref").strip() == ""
    # The remote-tracking ref knows what origin holds after a push to a URL.
    head = git(checkout, "rev-parse", "refs/heads/amelia/issue-2").strip()
    assert git(checkout, "rev-parse", tracking).strip() == head


def test_isolated_git_reads_only_the_global_config_amelia_owns(
    tmp_path: Path, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[credential]\n\thelper = store\n[user]\n\tname = Home\n")
    monkeypatch.setenv("HOME", str(home))
    ours = tmp_path / "ours.gitconfig"
    ours.write_text("[user]\n\tname = Ours\n")
    git(checkout, "config", "credential.helper", "!f() { echo password=planted-one; }; f")
    git(checkout, "config", "credential.https://example.com.helper", "!echo password=planted-two")
    ask = b"protocol=https\nhost=example.com\npath=x\nusername=u\n\n"

    assert run_git(["config", "user.name"], checkout).strip() == "Home"
    # Without isolation the planted helpers answer (the premise of the next check) …
    assert "password=planted" in run_git(["credential", "fill"], checkout, input=ask)
    isolated = Git(checkout).isolated(ours)
    assert run_git(["config", "user.name"], isolated).strip() == "Ours"
    # … isolated, git asks no helper: only amelia's empty askpass answers.
    answer = run_git(["credential", "fill"], isolated, input=ask, ok_codes=(0, 128))
    assert "planted" not in answer
    assert answer.splitlines()[-1] == "password="

    marker = tmp_path / "ssh.log"
    git(checkout, "config", "core.sshCommand", str(_script(tmp_path / "ssh.sh", marker)))
    # Without isolation a planted ssh command runs (the premise of the next check) …
    run_git(["ls-remote", "ssh://example.invalid/r"], checkout, ok_codes=(0, 1, 128))
    assert marker.exists()
    marker.unlink()
    # … isolated, ssh is no protocol git may use, so nothing runs.
    run_git(["ls-remote", "ssh://example.invalid/r"], isolated, ok_codes=(0, 1, 128))
    assert not marker.exists()
