"""The bot's git operations against a real bare repository as origin."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.errors import GitError, GitPushDeclinedError
from amelia.git import (
    NetworkRetry,
    commit_changes,
    commit_paths,
    configure_identity,
    diff,
    head_sha,
    mark_safe_directory,
    push,
    remote_default_branch,
    switch_to_branch,
)
from tests.git_helpers import git
from tests.integration.github.conftest import Origin

BRANCH = "amelia/issue-7-plan"
PLAN = "docs/plans/issue-7.md"


def commit_file(
    repo: Path, branch: str, path: str, content: str, message: str, co_author: str | None = None
) -> str:
    """Write `content` to `path` on `branch` (made from the default branch if new) and
    commit it, as the plan mode does; returns the branch's head."""
    switch_to_branch(repo, branch)
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8")
    return commit_paths(repo, [path], message, co_author=co_author)


def bot_clone(origin: Origin, name: str = "work") -> Path:
    work = origin.clone(name)
    configure_identity(work)
    return work


def test_commit_file_and_push_create_the_branch_in_origin(origin: Origin) -> None:
    work = bot_clone(origin)
    sha = commit_file(
        work, BRANCH, PLAN, "# Plan\n", "Add plan for #7", co_author="Alice <alice@x.invalid>"
    )
    push(work, BRANCH)
    assert git(origin.bare, "rev-parse", BRANCH).strip() == sha
    assert origin.show(BRANCH, PLAN) == "# Plan\n"
    log = git(origin.bare, "log", "-1", "--format=%an <%ae>%n%B", BRANCH)
    assert log.startswith("amelia[bot] <amelia[bot]@users.noreply.github.com>\nAdd plan for #7")
    assert "Co-authored-by: Alice <alice@x.invalid>" in log
    assert (
        git(origin.bare, "rev-parse", f"{BRANCH}~1").strip()
        == git(origin.bare, "rev-parse", "main").strip()
    )
    assert remote_default_branch(work) == "main"


def test_commit_file_builds_on_the_existing_remote_branch(origin: Origin) -> None:
    first = bot_clone(origin, "first")
    commit_file(first, BRANCH, PLAN, "v1\n", "Plan v1")
    push(first, BRANCH)
    second = bot_clone(origin, "second")
    before = head_sha(second)
    sha = commit_file(second, BRANCH, PLAN, "v2\n", "Plan v2")
    push(second, BRANCH)
    assert origin.show(BRANCH, PLAN) == "v2\n"
    assert git(origin.bare, "rev-list", "--count", BRANCH).strip() == "3"
    assert commit_file(second, BRANCH, PLAN, "v2\n", "Nothing new") == sha
    assert before != sha


def test_non_fast_forward_push_is_rebased_and_pushed(origin: Origin) -> None:
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    push(work, BRANCH)
    other = origin.clone("other")
    git(other, "fetch", "--quiet", "origin", BRANCH)
    git(other, "checkout", "--quiet", "-b", BRANCH, f"origin/{BRANCH}")
    (other / "NOTES.md").write_text("meanwhile\n")
    git(other, "add", "NOTES.md")
    git(other, "commit", "--quiet", "-m", "Someone else pushed meanwhile")
    git(other, "push", "--quiet", "origin", BRANCH)

    (work / "src.py").write_text("print('hi')\n")
    commit_changes(work, ["src.py"], "Implement")
    push(work, BRANCH, retry=NetworkRetry(sleep=lambda _: None))
    subjects = git(origin.bare, "log", "--format=%s", BRANCH).splitlines()
    assert subjects == ["Implement", "Someone else pushed meanwhile", "Plan", "Start"]
    assert origin.show(BRANCH, "NOTES.md") == "meanwhile\n"
    assert origin.show(BRANCH, "src.py") == "print('hi')\n"


def test_conflicting_rebase_is_aborted_and_reported(origin: Origin) -> None:
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "ours\n", "Plan")
    push(work, BRANCH)
    other = origin.clone("other")
    git(other, "fetch", "--quiet", "origin", BRANCH)
    git(other, "checkout", "--quiet", "-b", BRANCH, f"origin/{BRANCH}")
    (other / PLAN).write_text("theirs\n")
    git(other, "commit", "--quiet", "-am", "Their plan")
    git(other, "push", "--quiet", "origin", BRANCH)
    (work / PLAN).write_text("mine\n")
    commit_changes(work, [PLAN], "My plan")
    with pytest.raises(GitError, match="cannot rebase"):
        push(work, BRANCH, retry=NetworkRetry(sleep=lambda _: None))
    assert not (work / ".git" / "rebase-merge").exists()
    assert (work / PLAN).read_text() == "mine\n"


def test_unreachable_remote_fails_clearly(origin: Origin, tmp_path: Path) -> None:
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    git(work, "remote", "set-url", "origin", str(tmp_path / "gone.git"))
    waits: list[float] = []
    with pytest.raises(GitError) as caught:
        push(work, BRANCH, retry=NetworkRetry(attempts=3, backoff=0.5, sleep=waits.append))
    message = str(caught.value)
    assert message.startswith(f"push of {BRANCH} failed after 3 attempt(s): git push failed:")
    assert "does not appear to be a git repository" in message
    assert waits == [0.5, 1.0]


def test_commit_changes_and_diff(origin: Origin) -> None:
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    assert commit_changes(work, [PLAN], "Nothing") is None
    (work / "app.py").write_text("x = 1\n")
    sha = commit_changes(work, ["app.py"], "Add app", co_author="Bob <bob@x.invalid>")
    assert sha == head_sha(work)
    text = diff(work, "origin/main", head="HEAD")
    assert "+++ b/app.py" in text and f"+++ b/{PLAN}" in text
    with pytest.raises(GitError, match="invalid revision"):
        diff(work, "--output=/tmp/x", head="HEAD")


def test_mark_safe_directory_is_idempotent(tmp_path: Path, isolated_git_config: Path) -> None:
    mark_safe_directory(tmp_path)
    mark_safe_directory(tmp_path)
    assert isolated_git_config.read_text().count("directory = ") == 1
    assert str(tmp_path.resolve()) in isolated_git_config.read_text()


def test_unpushed_commits_survive_a_second_commit_file(origin: Origin) -> None:
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    commit_file(work, BRANCH, "docs/notes.md", "notes\n", "Notes")
    push(work, BRANCH)
    subjects = git(origin.bare, "log", "--format=%s", BRANCH).splitlines()
    assert subjects == ["Notes", "Plan", "Start"]


GH013 = """\
remote: error: GH013: Repository rule violations found for refs/heads/amelia/issue-7-plan.
remote: - Cannot create ref due to creations being restricted.
"""


def test_declined_push_is_not_retried_nor_rebased(origin: Origin) -> None:
    """A ruleset or protected-branch hook refusing the push is not a race: no rebase, no
    retry, and the remote's own words reach the error."""
    calls = origin.root / "hook-calls"
    hook = origin.bare / "hooks" / "pre-receive"
    hook.write_text(
        f'#!/bin/sh\necho x >> "{calls}"\nprintf "%s" "{GH013}" | sed "s/^remote: //" >&2\nexit 1\n'
    )
    hook.chmod(0o755)
    work = bot_clone(origin)
    commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    waits: list[float] = []
    with pytest.raises(GitPushDeclinedError) as caught:
        push(work, BRANCH, retry=NetworkRetry(attempts=3, backoff=0.5, sleep=waits.append))
    assert caught.value.message.startswith(f"push of {BRANCH} was declined by origin:")
    assert "GH013: Repository rule violations found" in caught.value.message
    assert calls.read_text().count("x") == 1 and waits == []
    assert git(origin.bare, "branch", "--list", BRANCH) == ""


def test_a_push_racing_another_for_the_ref_lock_is_tried_again(origin: Origin) -> None:
    """Two runs pushing the same branch at once: the remote refuses the loser with
    `[remote rejected] … (failed to update ref)` because the ref is locked. That is a race,
    not a rule: the push is tried again and lands."""
    calls = origin.root / "hook-calls"
    lock = origin.bare / "refs" / "heads" / f"{BRANCH}.lock"
    hook = origin.bare / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\n"
        f'echo x >> "{calls}"\n'
        f'if [ "$(wc -l < "{calls}")" -eq 1 ]; then mkdir -p "{lock.parent}"; : > "{lock}";'
        f' else rm -f "{lock}"; fi\n'
    )
    hook.chmod(0o755)
    work = bot_clone(origin)
    head = commit_file(work, BRANCH, PLAN, "plan\n", "Plan")
    waits: list[float] = []
    push(work, BRANCH, retry=NetworkRetry(attempts=3, backoff=0.5, sleep=waits.append))
    assert calls.read_text().count("x") == 2 and len(waits) == 1
    assert git(origin.bare, "rev-parse", BRANCH).strip() == head
