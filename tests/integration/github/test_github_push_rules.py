"""The local origin refuses pushes in GitHub's own words: what plain `git push` prints
against a bare repository with `refuse_like_github` is what it prints against GitHub (the
lines users report), `remote: ` prefix and refused ref's reason included."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from amelia.testing.github_push_rules import TokenKind, pushes_seen, refuse_like_github
from tests.git_helpers import IDENTITY, git

WORKFLOW = ".github/workflows/ci.yml"


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    (work / "README.md").write_text("# app\n")
    git(work, "add", "README.md")
    git(work, *IDENTITY, "commit", "-qm", "init")
    git(work, "push", "-q", "origin", "HEAD:main")
    return work


def _origin(clone: Path) -> Path:
    return clone.parent / "origin.git"


def _push(clone: Path, files: dict[str, str | int]) -> subprocess.CompletedProcess[str]:
    git(clone, "checkout", "-q", "-B", "amelia/issue-1", "origin/main")
    for name, content in files.items():
        path = clone / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, int):
            with path.open("wb") as handle:
                handle.truncate(content)
        else:
            path.write_text(content)
    git(clone, "add", "--all")
    git(clone, *IDENTITY, "commit", "-qm", "change")
    return subprocess.run(
        ["git", "push", "origin", "HEAD:refs/heads/amelia/issue-1"],
        cwd=clone,
        capture_output=True,
        text=True,
        check=False,
    )


def _remote_lines(stderr: str) -> list[str]:
    return [line.rstrip() for line in stderr.splitlines() if line.startswith("remote:")]


def _rejected(stderr: str) -> str:
    (line,) = [line for line in stderr.splitlines() if "[remote rejected]" in line]
    return line.strip()


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("app", "a GitHub App to create or update workflow `{}` without `workflows` permission"),
        ("oauth", "an OAuth App to create or update workflow `{}` without `workflow` scope"),
        (
            "pat",
            "a Personal Access Token to create or update workflow `{}` without `workflow` scope",
        ),
    ],
)
def test_a_workflow_file_is_refused_as_github_refuses_it(
    clone: Path, kind: TokenKind, reason: str
) -> None:
    refuse_like_github(_origin(clone), workflows=kind)

    pushed = _push(clone, {WORKFLOW: "on: push\n", "app.py": "x = 1\n"})

    assert pushed.returncode == 1
    assert _remote_lines(pushed.stderr) == []  # GitHub says it only in the ref's reason
    expected = f"refusing to allow {reason.format(WORKFLOW)}"
    assert _rejected(pushed.stderr) == (f"! [remote rejected] HEAD -> amelia/issue-1 ({expected})")
    assert pushes_seen(_origin(clone))[-1] == f"refused refs/heads/amelia/issue-1 {expected}"


def test_a_file_over_the_limit_is_refused_with_gh001(clone: Path) -> None:
    refuse_like_github(_origin(clone), max_file_bytes=1024)

    pushed = _push(clone, {"data/big.bin": 1_059_062})

    lines = _remote_lines(pushed.stderr)
    assert lines[0].startswith("remote: error: Trace: ")
    assert lines[1:] == [
        "remote: error: See https://gh.io/lfs for more information.",
        "remote: error: File data/big.bin is 1.01 MB; this exceeds GitHub's file size limit "
        "of 100.00 MB",
        "remote: error: GH001: Large files detected. You may want to try Git Large File "
        "Storage - https://git-lfs.github.com.",
    ]
    assert _rejected(pushed.stderr).endswith("(pre-receive hook declined)")


def test_a_secret_is_refused_by_push_protection_with_gh009(clone: Path) -> None:
    refuse_like_github(_origin(clone), secrets={"Amazon AWS Access Key ID": r"AKIA[A-Z0-9]{16}"})

    pushed = _push(clone, {"keys.txt": "first\nkey = AKIA" + "ABCDEFGHIJKLMNOP\n"})

    commit = git(clone, "rev-parse", "HEAD").strip()
    lines = _remote_lines(pushed.stderr)
    assert lines[0] == "remote: error GH009: Secrets detected! This push failed."
    assert "remote:             GITHUB PUSH PROTECTION" in lines
    assert "remote:  Resolve the following secrets before pushing again." in lines
    assert any(
        line.startswith("remote: \u2014\u2014 Amazon AWS Access Key ID \u2014") for line in lines
    )
    assert f"remote:    - commit: {commit}" in lines
    assert "remote:      path: keys.txt:2" in lines
    assert any("/octo/app/security/secret-scanning/unblock-secret/" in line for line in lines)
    assert _rejected(pushed.stderr).endswith("(push declined due to a detected secret)")


def test_anything_else_is_taken(clone: Path) -> None:
    refuse_like_github(_origin(clone), workflows="app", max_file_bytes=1024)

    pushed = _push(clone, {"app.py": "x = 1\n"})

    assert pushed.returncode == 0, pushed.stderr
    assert (
        git(_origin(clone), "rev-parse", "amelia/issue-1").strip()
        == git(clone, "rev-parse", "HEAD").strip()
    )
    assert pushes_seen(_origin(clone))[-1] == "accepted refs/heads/amelia/issue-1"
