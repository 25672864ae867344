"""What a review covers, and what the findings earlier reviews left open mean for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.action.modes.review._earlier_findings import (
    fixed_reply,
    render_earlier_findings,
    settle,
)
from amelia.action.modes.review._scope import follows, plan_scope, requested_kind
from amelia.config import ReviewScopeSetting
from amelia.core.state import ReviewComment, ReviewKind, ReviewResult, ReviewScope, Severity
from amelia.github.markers import review_marker, reviewed_commit
from amelia.github.models import ReviewCommentInfo
from amelia.github.review_history import (
    OpenFinding,
    ReviewHistory,
    load_review_history,
    split_finding,
)
from amelia.testing.github import GitHubState, InMemoryGitHub
from tests.git_helpers import IDENTITY, git, init_repo

OLD, NEW = "a" * 40, "b" * 40


@pytest.mark.parametrize(
    ("setting", "on_push", "notes", "expected"),
    [
        ("auto", True, "", "incremental"),
        ("auto", False, "", "full"),
        ("auto", False, "please, incremental", "incremental"),
        ("auto", False, "Incremental please", "incremental"),
        ("full", True, "", "full"),
        ("full", False, "incremental", "incremental"),  # the command asked for it
        ("incremental", False, "", "incremental"),
        ("incremental", True, "full", "full"),
    ],
)
def test_requested_kind(
    setting: ReviewScopeSetting, on_push: bool, notes: str, expected: ReviewKind
) -> None:
    assert requested_kind(setting, on_push=on_push, notes=notes) == expected


def test_an_increment_needs_the_last_reviewed_commit_below_the_head(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"a.py": "a = 1\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    (repo / "a.py").write_text("a = 2\n")
    git(repo, *IDENTITY, "commit", "-qam", "two")
    old = git(repo, "rev-parse", "HEAD").strip()
    (repo / "b.py").write_text("b = 1\n")
    git(repo, "add", "b.py")
    git(repo, *IDENTITY, "commit", "-qm", "three")
    head = git(repo, "rev-parse", "HEAD").strip()

    assert follows(repo, old, head)
    assert not follows(repo, head, head)  # nothing new since
    assert not follows(repo, head, old)
    assert not follows(repo, "f" * 40, head)  # force-pushed away: not here at all

    history = ReviewHistory(last_reviewed=old)
    scope = plan_scope(repo, merge_base_sha=base, head=head, history=history, kind="incremental")
    assert (scope.kind, scope.base, scope.changed_files) == ("incremental", old, ("a.py", "b.py"))
    rewritten = ReviewHistory(last_reviewed="f" * 40)
    scope = plan_scope(repo, merge_base_sha=base, head=head, history=rewritten, kind="incremental")
    assert (scope.kind, scope.base) == ("full", base)


def test_a_pull_that_merged_its_base_since_the_last_review_is_reviewed_whole(
    tmp_path: Path,
) -> None:
    repo = init_repo(tmp_path / "repo", {"a.py": "a = 1\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-qb", "feature")
    (repo / "b.py").write_text("b = 1\n")
    git(repo, "add", "b.py")
    git(repo, *IDENTITY, "commit", "-qm", "feature")
    reviewed = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "main")
    (repo / "main.py").write_text("m = 1\n")
    git(repo, "add", "main.py")
    git(repo, *IDENTITY, "commit", "-qm", "main moves on")
    main = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "feature")
    history = ReviewHistory(last_reviewed=reviewed)

    # The base moved on without the pull: a new commit on the pull is an increment.
    (repo / "c.py").write_text("c = 1\n")
    git(repo, "add", "c.py")
    git(repo, *IDENTITY, "commit", "-qm", "more")
    head = git(repo, "rev-parse", "HEAD").strip()
    scope = plan_scope(repo, merge_base_sha=base, head=head, history=history, kind="incremental")
    assert (scope.kind, scope.base) == ("incremental", reviewed)

    # "Update branch": main merged in. Its changes are not the pull's; review it whole.
    git(repo, *IDENTITY, "merge", "-q", "--no-edit", "main")
    merged = git(repo, "rev-parse", "HEAD").strip()
    scope = plan_scope(repo, merge_base_sha=main, head=merged, history=history, kind="incremental")
    assert (scope.kind, scope.base, scope.changed_files) == ("full", main, ("b.py", "c.py"))


def test_only_the_first_line_of_a_review_names_the_reviewed_commit() -> None:
    assert reviewed_commit(f"{review_marker(OLD)}\n## amelia review") == OLD
    assert reviewed_commit(f"Looks fine\n{review_marker(OLD)}") is None
    assert reviewed_commit(review_marker("not-a-sha")) is None
    assert split_finding("**major**: x is wrong\n\n```suggestion\nx = 1\n```") == (
        "major",
        "x is wrong",
    )


REPO = "octo/app"
PULL = 7


def _github(roles: dict[str, str]) -> InMemoryGitHub:
    """A repository whose pull request #7 nobody reviewed yet, and who has which role."""
    state = GitHubState()
    state.add_repo(REPO)
    for number in range(1, PULL):
        state.add_issue(REPO, f"issue {number}")
    state.add_pull(REPO, head="feature")
    for login, role in roles.items():
        state.set_permission(REPO, login, role)
    return InMemoryGitHub(state, REPO)


def _review(github: InMemoryGitHub, commit: str, author: str) -> int:
    """A review naming `commit` as amelia's do, by `author`, with one finding on `a.py`;
    returns its id."""
    body = f"{review_marker(commit)}\n## amelia review"
    finding = {"path": "a.py", "line": 1, "body": "**major**: bad", "side": "RIGHT"}
    return github.state.add_review(REPO, PULL, user=author, body=body, comments=[finding]).id


async def test_a_marker_counts_only_from_a_bot_or_someone_with_write_access() -> None:
    github = _github({"outsider": "read"})
    amelia = _review(github, OLD, "github-actions[bot]")  # the job's token: a Bot
    _review(github, NEW, "outsider")  # forged: would make the next increment empty
    history = await load_review_history(github, PULL)
    assert history.last_reviewed == OLD
    assert [f.comment.review_id for f in history.open_findings] == [amelia]

    github = _github({"maintainer": "write"})
    _review(github, OLD, "github-actions[bot]")
    _review(github, NEW, "maintainer")  # amelia running with a person's token
    history = await load_review_history(github, PULL)
    assert history.last_reviewed == NEW
    forged_only = _github({})
    _review(forged_only, NEW, "outsider")
    assert await load_review_history(forged_only, PULL) == ReviewHistory()


async def test_amelia_s_fixed_reply_closes_a_thread_it_could_not_resolve() -> None:
    github = _github({"outsider": "read", "maintainer": "write"})
    _review(github, OLD, "github-actions[bot]")
    (root,) = github.state.review_comments(REPO, PULL)

    def reply(body: str, author: str) -> None:
        github.state.reply_to_review_comment(REPO, PULL, root.id, body, author=author)

    async def still_open() -> list[int]:
        return [f.comment.id for f in (await load_review_history(github, PULL)).open_findings]

    reply(fixed_reply(NEW), "outsider")  # anyone can write the same words
    assert await still_open() == [root.id]
    reply(fixed_reply(NEW), "github-actions[bot]")
    assert await still_open() == []
    reply("Not fixed: y is still wrong", "maintainer")  # the last word opens it again
    assert await still_open() == [root.id]


def _open(comment_id: int, severity: Severity, text: str, line: int = 5) -> OpenFinding:
    comment = ReviewCommentInfo(
        id=comment_id,
        path="a.py",
        original_line=line,
        original_commit_id=OLD,
        body=f"**{severity}**: {text}",
        html_url=f"https://github.example/o/r/pull/1#discussion_r{comment_id}",
    )
    return OpenFinding(comment=comment, thread_id=f"T{comment_id}", severity=severity, text=text)


PUSH_DIFF = "--- a/a.py\n+++ b/a.py\n@@ -4,3 +4,3 @@\n x\n-y\n+z\n w\n"
"""The push changes a.py's lines 4 to 6."""


def _scope(kind: ReviewKind) -> ReviewScope:
    return ReviewScope(kind=kind, base=OLD, head=NEW)


def test_a_finding_still_open_is_not_posted_again() -> None:
    history = ReviewHistory(last_reviewed=OLD, open_findings=(_open(1, "minor", "Name it x"),))
    result = ReviewResult(
        verdict="changes_requested",
        summary="s",
        comments=(
            ReviewComment(path="a.py", line=9, body="name  it X"),  # same words, other line
            ReviewComment(path="b.py", line=9, body="Name it x"),  # another file
        ),
    )
    for kind in ("full", "incremental"):
        settled = settle(result, history, _scope(kind))
        assert [c.path for c in settled.result.comments] == ["b.py"]
        assert settled.repeats == 1
    note = render_earlier_findings(settled)
    assert "1 still open" in note and "discussion_r1" in note and "not posted again" in note


def test_fixed_needs_the_push_to_change_the_findings_lines() -> None:
    touched, elsewhere = _open(1, "major", "bad y", line=5), _open(2, "major", "bad q", line=40)
    history = ReviewHistory(last_reviewed=OLD, open_findings=(touched, elsewhere))
    result = ReviewResult(verdict="approved", summary="s", fixed=(1, 2, 99))

    settled = settle(result, history, _scope("incremental"), push_diff=PUSH_DIFF)
    assert [f.comment.id for f in settled.fixed] == [1]
    assert [f.comment.id for f in settled.still_open] == [2]
    # The one left open is major: the verdict on the whole pull is not approved.
    assert settled.result.verdict == "changes_requested" and settled.result.severity == "major"
    assert "Not approved: 1 earlier finding(s)" in render_earlier_findings(settled)

    # A full review reviews everything itself: nothing is marked fixed or held.
    full = settle(result, history, _scope("full"), push_diff=PUSH_DIFF)
    assert full.fixed == () and full.result.verdict == "approved"


def test_open_minor_findings_do_not_hold_an_approval() -> None:
    history = ReviewHistory(last_reviewed=OLD, open_findings=(_open(1, "minor", "nit"),))
    result = ReviewResult(verdict="approved", summary="s")
    settled = settle(result, history, _scope("incremental"))
    assert settled.result.verdict == "approved" and settled.held_by == ()
