"""An `/amelia implement` run asks git, and origin, each question once: what it already
knows about an unchanged checkout (whether origin has the branch, HEAD, what the commits
change) is not asked again, while everything after an agent, a commit or a push is.

The git commands are seen as git sees them, through a `git` earlier on PATH that writes
each command line down and runs the real git; origin's side of the conversation is what
the local GitHub's git HTTP server received."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from amelia.testing.action_harness import ActionHarness
from tests.modes.test_implement import _planned_issue, implement_agents

_LOG_VARIABLE = "AMELIA_TEST_GIT_LOG"
_COMMIT_FILES = re.compile(
    r"diff .*--(numstat|name-status|name-only) .*[0-9a-f]{40} [0-9a-f]{40} --$"
)


def _log_git_commands(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Path:
    """Put a `git` that writes down each command line (NUL after each) first on PATH; the
    local GitHub's own `git http-backend` runs without the variable and is not written."""
    real = shutil.which("git")
    assert real is not None
    log = folder / "git-commands"
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "git"
    shim.write_text(
        "#!/bin/sh\n"
        f'if [ -n "${_LOG_VARIABLE}" ]; then printf \'%s\\0\' "$*" >> "${_LOG_VARIABLE}"; fi\n'
        f'exec {real} "$@"\n',
        encoding="utf-8",
    )
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{Path(real).parent}:/usr/bin:/bin")
    monkeypatch.setenv(_LOG_VARIABLE, str(log))
    log.touch()
    return log


def _commands(log: Path) -> list[str]:
    return [entry for entry in log.read_text(encoding="utf-8").split("\0") if entry]


def test_an_implement_run_asks_origin_about_its_branch_once_and_git_nothing_twice(
    action: ActionHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    action.agents = implement_agents()
    number = _planned_issue(action)
    log = _log_git_commands(monkeypatch, tmp_path)
    reads_before = len(action.github.git_requests)
    before = len(_commands(log))

    run = action.run_in_process("issue_comment", action.comment_event(number, "/amelia implement"))

    assert run.exit_code == 0, run.stdout + run.stderr
    # The local GitHub's own reads of its bare repository (`--git-dir …`) are GitHub's
    # side; everything else is the run's git.
    ran = [command for command in _commands(log)[before:] if not command.startswith("--git-dir")]
    branch = f"refs/heads/amelia/issue-{number}"
    assert [command for command in ran if command.startswith("ls-remote --heads")] == [
        f"ls-remote --heads {action.origin_url} {branch}"
    ]
    # Each read of origin (`ls-remote`, `fetch`) opens with one GET of info/refs: the
    # branch's existence, its fetch, the default branch's name and its fetch.
    reads = [
        request
        for request in action.github.git_requests[reads_before:]
        if request.method == "GET" and request.service == "git-upload-pack"
    ]
    assert len(reads) == 4, reads
    # The worktree is listed once before the first agent, for the credential files to
    # hide and the baseline of what earlier steps left.
    ignored = [command for command in ran if "--ignored" in command]
    assert len(ignored) == 1, ran
    # HEAD is asked where it may have moved: on the plan's branch, before the rounds
    # (the project's setup ran in between), after the commit, after the push, after the
    # reviewer; never twice where nothing moved it.
    heads = [command for command in ran if command == "rev-parse --verify HEAD^{commit}"]
    assert len(heads) <= 5, ran
    # The files the pushed commits change are listed once, for the check that the
    # developer changed more than the plan and for the pull's description.
    listings = [command for command in ran if _COMMIT_FILES.match(command)]
    assert len(listings) == 1, listings
    # Every git command of the run (amelia's, not the local GitHub's): 49 while these
    # questions were asked twice, 42 since.
    assert len(ran) <= 42, "\n".join(ran)
