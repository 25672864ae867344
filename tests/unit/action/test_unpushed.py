"""Saving commits that reached no remote: the patch, the changed files, the summary part."""

from __future__ import annotations

import os
from pathlib import Path

from amelia.action.checkout._unpushed import COMMENT_PATCH_LIMIT, PATCH_NAME, save_unpushed
from amelia.git import PushRefusal, SecretLocation
from amelia.redaction import Redactor
from amelia.testing.action_harness import git


def _repo(path: Path) -> Path:
    git(path.parent, "init", "--quiet", "-b", "main", str(path))
    git(path, "config", "user.name", "t")
    git(path, "config", "user.email", "t@example.com")
    return path


def _commit(repo: Path, name: str, content: str) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text(content, encoding="utf-8")
    git(repo, "add", name)
    git(repo, "commit", "--quiet", "-m", f"Add {name}")


def test_a_branch_with_no_remote_is_saved_from_its_first_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _commit(repo, "docs/plans/p.md", "**Goal:** wave\n")
    _commit(repo, "src/a.py", "x = 1\n")

    saved = save_unpushed(repo, "main", tmp_path / "kept")

    assert saved is not None
    assert saved.patch_path == tmp_path / "kept" / PATCH_NAME
    assert saved.patch.count("Subject: [PATCH") == 2
    assert set(saved.files) == {"docs/plans/p.md", "src/a.py"}
    assert (tmp_path / "kept" / "files" / "docs" / "plans" / "p.md").read_text() == (
        "**Goal:** wave\n"
    )


def test_only_commits_missing_from_every_remote_are_saved(tmp_path: Path) -> None:
    origin = _repo(tmp_path / "origin")
    _commit(origin, "README.md", "hi\n")
    git(tmp_path, "clone", "--quiet", str(origin), str(tmp_path / "work"))
    work = tmp_path / "work"
    git(work, "config", "user.name", "t")
    git(work, "config", "user.email", "t@example.com")
    assert save_unpushed(work, "main", tmp_path / "none") is None
    assert not (tmp_path / "none").exists()

    _commit(work, "plan.md", "secret-token-value and **Goal:**\n")
    saved = save_unpushed(work, "main", tmp_path / "kept")

    assert saved is not None and saved.files == ("plan.md",)
    assert "README.md" not in saved.patch
    summary = saved.summary_markdown(Redactor(secrets=["secret-token-value"]))
    assert "### Unpushed work on `main`" in summary and "+" in summary
    assert "secret-token-value" not in summary


def test_a_patch_with_backtick_runs_stays_inside_its_code_block(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _commit(repo, "README.md", "````md\n```py\nx\n```\n````\n")

    saved = save_unpushed(repo, "main", tmp_path / "kept")

    assert saved is not None
    summary = saved.summary_markdown(Redactor())
    assert "\n`````diff\n" in summary
    assert summary.count("\n`````\n") == 1


def test_names_and_contents_that_are_not_utf8_are_saved_byte_for_byte(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _commit(repo, "README.md", "hi\n")
    name = os.fsdecode(b"caf\xe9 menu.txt")  # Latin-1, with a space
    (repo / name).write_bytes(b"cr\xe8me br\xfbl\xe9e\n")
    git(repo, "add", "--all")
    git(repo, "commit", "--quiet", "-m", "Add the menu")

    saved = save_unpushed(repo, "main", tmp_path / "kept")

    assert saved is not None and name in saved.files
    assert (tmp_path / "kept" / "files" / name).read_bytes() == b"cr\xe8me br\xfbl\xe9e\n"
    assert b"cr\xe8me" in (tmp_path / "kept" / PATCH_NAME).read_bytes()
    assert "cr\ufffdme" in saved.summary_markdown(Redactor())


def test_a_patch_github_found_a_secret_in_is_saved_masked_and_never_shown(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "repo")
    _commit(repo, "keys.py", 'KEY = "acme_live_0123456789abcdef"\nOTHER = 1\n')
    commit = git(repo, "rev-parse", "HEAD").strip()
    refusal = PushRefusal(kind="secret", locations=(SecretLocation(commit, "keys.py", 1),))

    saved = save_unpushed(repo, "main", tmp_path / "kept", refusal=refusal)

    assert saved is not None and saved.holds_secret
    assert "acme_live" not in (tmp_path / "kept" / PATCH_NAME).read_text()
    assert (tmp_path / "kept" / "files" / "keys.py").read_text() == "***\nOTHER = 1\n"
    assert "+OTHER = 1" in saved.patch
    summary = saved.summary_markdown(Redactor())
    assert str(saved.patch_path) in summary and "actions/upload-artifact" in summary
    assert "```diff" not in summary and "OTHER" not in summary
    assert saved.comment_markdown(Redactor()) is None


def test_only_a_short_patch_without_credential_shapes_is_shown_on_the_comment(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path / "repo")
    _commit(repo, "a.py", "A = 1\n")
    saved = save_unpushed(repo, "main", tmp_path / "short")
    assert saved is not None
    shown = saved.comment_markdown(Redactor())
    assert shown is not None and "+A = 1" in shown and "git am" in shown

    _commit(repo, "b.py", "B = '" + "b" * COMMENT_PATCH_LIMIT + "'\n")
    saved = save_unpushed(repo, "main", tmp_path / "long")
    assert saved is not None and saved.comment_markdown(Redactor()) is None

    repo = _repo(tmp_path / "other")
    _commit(repo, "c.py", "KEY = 'AKIA" + "ABCDEFGHIJKLMNOP'\n")
    saved = save_unpushed(repo, "main", tmp_path / "token")
    assert saved is not None and saved.comment_markdown(Redactor()) is None


def test_a_patch_with_a_stripe_or_gitlab_key_is_not_shown_on_the_comment(
    tmp_path: Path,
) -> None:
    """Keys of the kinds GitHub's push protection blocks are never posted in a patch, and
    the patch saved for an upload step has them masked."""
    stripe = "sk_" + "live_51H8x" + "Zq3Rt" * 18
    gitlab = "glpat-" + "xY7z" + "Ab12Cd34Ef56Gh78"
    for name, key in (("stripe", stripe), ("gitlab", gitlab)):
        repo = _repo(tmp_path / name)
        _commit(repo, ".github/workflows/deploy.yml", f"env:\n  KEY: {key}\n")
        saved = save_unpushed(repo, "main", tmp_path / f"{name}-kept")
        assert saved is not None and key not in saved.patch
        assert "KEY: ***" in saved.patch
        assert saved.comment_markdown(Redactor()) is None
