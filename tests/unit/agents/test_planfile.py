"""Plan paths, slugs, goal extraction and what counts as a plan."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from amelia.agents.planfile import (
    clean_plan_markdown,
    extract_goal,
    looks_like_plan,
    render_plan_path,
    slugify,
    write_plan,
)
from amelia.core.types import Issue
from amelia.errors import PlanPathError
from amelia.git import validate_plan_path

DAY = date(2026, 3, 4)


def test_default_pattern() -> None:
    issue = Issue(id="gh-7", number=7, title="Crème brûlée: Support ÜTF-8 titles!")
    path = render_plan_path("docs/plans/{date}-issue-{number}-{slug}.md", issue, today=DAY)
    assert path == "docs/plans/2026-03-04-issue-7-creme-brulee-support-utf-8-titles.md"


def test_number_falls_back_to_the_issue_id() -> None:
    issue = Issue(id="owner/repo#12", title="x")
    assert (
        render_plan_path("{number}-{id}.md", issue, today=DAY) == "owner-repo-12-owner-repo-12.md"
    )


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(PlanPathError, match="user"):
        render_plan_path("{user}/{slug}.md", Issue(id="1", title="t"), today=DAY)


@given(st.text(max_size=300))
def test_slug_is_short_lowercase_ascii_with_hyphens(title: str) -> None:
    slug = slugify(title)
    assert 0 < len(slug) <= 50
    assert all(ch.isascii() and (ch.islower() or ch.isdigit() or ch == "-") for ch in slug)
    assert not slug.startswith("-") and not slug.endswith("-")


def test_slug_cuts_at_a_word_boundary() -> None:
    slug = slugify("word " * 30)
    assert slug.endswith("word") and len(slug) <= 50


@pytest.mark.parametrize("relative", ["../x.md", "/etc/passwd", "docs/../../x.md", ".git/x.md", ""])
def test_paths_leaving_the_repo_are_refused(tmp_path: Path, relative: str) -> None:
    with pytest.raises(PlanPathError):
        validate_plan_path(tmp_path, relative)


def test_symlinked_folder_leaving_the_repo_is_refused(tmp_path: Path) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    (repo / "docs").symlink_to(outside)
    with pytest.raises(PlanPathError):
        write_plan(repo, "docs/plan.md", "# Plan")
    assert list(outside.iterdir()) == []


def test_write_plan_creates_folders(tmp_path: Path) -> None:
    written = write_plan(tmp_path, "docs/plans/a.md", "# Plan\n\n**Goal:** x\n\n\n")
    assert written.read_text() == "# Plan\n\n**Goal:** x\n"


@pytest.mark.parametrize(
    ("markdown", "goal"),
    [
        ("# P\n\n**Goal:** Fix bug: handle edge case\n", "Fix bug: handle edge case"),
        ("preamble\n- **Goal:** Listed goal", "Listed goal"),
        ("**Goal**: Colon outside", "Colon outside"),
        ("# P\n\nno goal here", None),
        ("", None),
        (None, None),
    ],
)
def test_extract_goal(markdown: str | None, goal: str | None) -> None:
    assert extract_goal(markdown) == goal


@pytest.mark.parametrize(
    ("markdown", "is_plan"),
    [
        ("**Goal:** x", True),
        ("# Plan\n\n### Task 1: do", True),
        ("## Step 2 - wire it", True),
        ("I explored the code and it looks fine.", False),
        ("   ", False),
    ],
)
def test_looks_like_plan(markdown: str, is_plan: bool) -> None:
    assert looks_like_plan(markdown) is is_plan


def test_clean_keeps_a_goal_written_before_the_title() -> None:
    text = "**Goal:** early goal\n\n# Title\n\n### Task 1"
    assert clean_plan_markdown(text) == text
