"""What the reviewer sees: committed, uncommitted and untracked changes, within a budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.errors import GitError
from amelia.git import (
    ChangedFile,
    changed_paths,
    collect_changes,
    diff_files,
    head_sha,
    worktree_root,
)
from tests.git_helpers import IDENTITY, git


async def test_sections_are_labelled_and_empty_ones_left_out(repo: Path) -> None:
    (repo / "new.txt").write_text("fresh\n")
    changes = await collect_changes(repo, "HEAD")
    text = changes.as_text()
    assert "### New untracked files" in text and "+fresh" in text
    assert "Committed changes" not in text and "Uncommitted" not in text
    assert not changes.is_empty and not changes.truncated


async def test_committed_changes_are_diffed_against_the_merge_base(repo: Path) -> None:
    base = git(repo, "rev-parse", "HEAD~1").strip()
    changes = await collect_changes(repo, base)
    assert "+def test_greet() -> None:" in changes.committed
    assert changes.uncommitted == "" and changes.untracked == ""


async def test_large_changes_are_cut_to_the_budget(repo: Path) -> None:
    for index in range(30):
        (repo / f"file{index:02}.txt").write_text("x\n" * 50)
    changes = await collect_changes(repo, "HEAD", max_chars=2_000)
    assert changes.truncated
    assert len(changes.untracked) <= 2_000
    assert "run `git diff` yourself" in changes.as_text()


def test_git_helpers(repo: Path, tmp_path: Path) -> None:
    assert worktree_root(repo / "greeter") == repo.resolve()
    with pytest.raises(GitError, match="rev-parse"):
        worktree_root(tmp_path)
    assert len(head_sha(repo, ref="HEAD")) == 40
    with pytest.raises(GitError, match="rev-parse"):
        head_sha(repo, ref="no-such-ref")


def test_one_command_lists_each_changed_files_lines_and_status(repo: Path) -> None:
    base = head_sha(repo)
    (repo / "greeter" / "core.py").write_text("changed\n", encoding="utf-8")
    (repo / "README.md").unlink()
    (repo / "tab\tname.txt").write_text("a\nb\n", encoding="utf-8")
    (repo / "image.bin").write_bytes(b"\0\1\2")
    (repo / ":colon").write_text("", encoding="utf-8")
    (repo / "link").symlink_to("greeter")
    git(repo, "add", "-A")
    git(repo, *IDENTITY, "commit", "-q", "-m", "change")

    files = diff_files(repo, base)

    assert [file.path for file in files] == changed_paths(repo, base)
    assert files == [
        ChangedFile(":colon", 0, 0, "A"),
        ChangedFile("README.md", 0, 3, "D"),
        ChangedFile("greeter/core.py", 1, 6, "M"),
        ChangedFile("image.bin", None, None, "A"),  # binary: no line counts
        ChangedFile("link", 1, 0, "A"),
        ChangedFile("tab\tname.txt", 2, 0, "A"),
    ]
    assert diff_files(repo, "HEAD") == []
