from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from amelia.errors import BranchNameError, PlanPathError
from amelia.git import unquote_path, validate_branch_name, validate_plan_path


@pytest.mark.parametrize(
    "name", ["amelia/issue-7-plan", "feature/x_y.z", "a", "amelia/7/v2", "release-1.2"]
)
def test_valid_branch_names(name: str) -> None:
    assert validate_branch_name(name) == name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "-rf",
        "a..b",
        "a//b",
        "/a",
        "a/",
        "a.",
        ".hidden",
        "a/.b",
        "x.lock",
        "a/b.lock/c",
        "HEAD",
        "@",
        "a b",
        "a;rm -rf ~",
        "$(id)",
        "a`id`",
        "a|b",
        "a&b",
        "a>b",
        "a~1",
        "a^",
        "a:b",
        "a?",
        "a*",
        "a[b",
        "a\\b",
        "a@{1}",
        "a\nb",
        "x" * 201,
        "ünïcode",
    ],
)
def test_invalid_branch_names(name: str) -> None:
    with pytest.raises(BranchNameError, match="invalid branch name"):
        validate_branch_name(name)


def test_branch_prefix() -> None:
    assert validate_branch_name("amelia/x", prefix="amelia/") == "amelia/x"
    with pytest.raises(BranchNameError, match="must start with 'amelia/'"):
        validate_branch_name("main", prefix="amelia/")


def test_plan_paths(tmp_path: Path) -> None:
    assert validate_plan_path(tmp_path, "docs/plans/p.md") == tmp_path.resolve() / "docs/plans/p.md"
    assert validate_plan_path(tmp_path, "./p.md") == tmp_path.resolve() / "p.md"


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("/etc/passwd", "relative"),
        ("../x.md", r"'\.\.'"),
        ("docs/../../x.md", r"'\.\.'"),
        (".git/hooks/pre-commit", r"\.git"),
        ("sub/.GIT/config", r"\.git"),
        ("", "invalid"),
        ("a\\..\\b", "invalid"),
        (".", "leaves"),
    ],
)
def test_rejected_plan_paths(tmp_path: Path, path: str, message: str) -> None:
    with pytest.raises(PlanPathError, match=message):
        validate_plan_path(tmp_path, path)


def test_symlink_out_of_the_repository_is_rejected(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "docs").symlink_to(tmp_path)
    with pytest.raises(PlanPathError, match="leaves the repository"):
        validate_plan_path(repo, "docs/plan.md")


@pytest.mark.parametrize(
    ("shown", "name"),
    [
        ('"\\303\\251.txt"', "\u00e9.txt"),  # é.txt as git and GitHub's diffs write it
        ('"caf\\351.txt"', "caf\ufffd.txt"),  # a Latin-1 name: not UTF-8
        ('"tab\\there \\"q\\" back\\\\slash"', 'tab\there "q" back\\slash'),
        ("\u00e9.txt", "\u00e9.txt"),  # core.quotePath=false: already the name
        ("plain/path.py", "plain/path.py"),
        ('"', '"'),
    ],
)
def test_git_quoted_paths_are_unquoted(shown: str, name: str) -> None:
    assert unquote_path(shown) == name


@pytest.mark.parametrize(
    "name",
    [
        "amelia/issue-1",
        "x.lock/issue-1",
        "a/.b/issue-1",
        "a/b.lock",
        "a./issue-1",
        "a/b./c",
        "bots/amelia-issue-1",
        "HEAD",
        "@",
        "a@b/issue-1",
        "-x/issue-1",
        "a.b.c/issue-1",
    ],
)
def test_every_branch_name_accepted_is_one_git_check_ref_format_accepts(
    tmp_path: Path, name: str
) -> None:
    git_accepts = (
        subprocess.run(
            ["git", "check-ref-format", "--branch", name], cwd=tmp_path, capture_output=True
        ).returncode
        == 0
    )
    try:
        validate_branch_name(name)
    except BranchNameError:
        return  # stricter than git is allowed; looser is not
    assert git_accepts, name
