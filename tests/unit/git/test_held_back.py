"""What a push may carry: workflow files and files over GitHub's limit are held back, kept
in the worktree, and given as a patch; after GitHub's refusal they are taken out of the
commits that were not pushed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from amelia.git import (
    MAX_FILE_BYTES,
    HeldFile,
    PushAllowance,
    drop_from_unpushed,
    held_back_diff,
    hold_back,
    unpushed_paths,
)
from tests.git_helpers import IDENTITY, git, init_repo

WORKFLOW = ".github/workflows/ci.yml"


def _repo(tmp_path: Path) -> Path:
    return init_repo(
        tmp_path / "repo",
        {"app.py": "print('hi')\n", ".github/workflows/old.yml": "on: push\n"},
    )


def _write(repo: Path, files: Mapping[str, str | int]) -> None:
    for name, content in files.items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, int):
            with path.open("wb") as handle:
                handle.truncate(content)
        else:
            path.write_text(content, encoding="utf-8")


def _answering(answer: bool | None) -> Callable[[], bool | None]:
    return lambda: answer


def test_workflow_files_are_held_back_only_when_the_token_may_not_push_them(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    _write(repo, {WORKFLOW: "on: pull_request\n", "app.py": "print('bye')\n"})
    (repo / ".github/workflows/old.yml").unlink()
    paths = ["app.py", WORKFLOW, ".github/workflows/old.yml"]

    keep, held = hold_back(repo, paths, PushAllowance(ask=lambda: False))
    assert keep == ["app.py"]
    assert held == [
        HeldFile(WORKFLOW, "workflow", len("on: pull_request\n")),
        HeldFile(".github/workflows/old.yml", "workflow", None),
    ]
    for answer in (True, None):
        keep, held = hold_back(repo, paths, PushAllowance(ask=_answering(answer)))
        assert (keep, held) == (paths, [])


def test_the_token_is_asked_once_and_only_for_a_workflow_file(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _write(repo, {WORKFLOW: "on: push\n"})
    asked: list[int] = []

    def ask() -> bool:
        asked.append(1)
        return False

    allowance = PushAllowance(ask=ask)
    hold_back(repo, ["app.py"], allowance)
    assert asked == []
    hold_back(repo, [WORKFLOW], allowance)
    hold_back(repo, [WORKFLOW], allowance)
    assert asked == [1]


def test_a_file_over_githubs_limit_is_held_back_whatever_its_name(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _write(repo, {"big.bin": MAX_FILE_BYTES + 1, "edge.bin": MAX_FILE_BYTES})
    keep, held = hold_back(repo, ["big.bin", "edge.bin"], PushAllowance())
    assert keep == ["edge.bin"]  # GitHub takes a file of exactly 100 MiB
    assert held == [HeldFile("big.bin", "too_large", MAX_FILE_BYTES + 1)]


def test_a_file_github_refused_by_name_is_held_back(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _write(repo, {"data.bin": 10})
    allowance = PushAllowance(refused={"data.bin"})
    assert hold_back(repo, ["data.bin"], allowance) == ([], [HeldFile("data.bin", "too_large", 10)])


def test_the_held_back_diff_applies_on_head(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _write(repo, {WORKFLOW: "on: pull_request\n", "bin.dat": "\0\1\2"})
    (repo / ".github/workflows/old.yml").unlink()
    patch = held_back_diff(repo, [WORKFLOW, ".github/workflows/old.yml", "bin.dat"])
    assert b"GIT binary patch" in patch

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    (clone / "held.patch").write_bytes(patch)
    git(clone, "apply", "held.patch")
    assert (clone / WORKFLOW).read_text() == "on: pull_request\n"
    assert not (clone / ".github/workflows/old.yml").exists()
    assert (clone / "bin.dat").read_bytes() == b"\0\1\2"
    assert held_back_diff(repo, []) == b""


def _commit(repo: Path, message: str, files: dict[str, str]) -> str:
    _write(repo, files)
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", message)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize("rounds", [1, 2])
def test_held_files_are_taken_out_of_the_unpushed_commits_and_stay_on_disk(
    tmp_path: Path, rounds: int
) -> None:
    repo = _repo(tmp_path)
    published = git(repo, "rev-parse", "HEAD").strip()
    _commit(repo, "Implement issue #1\n\nCo-authored-by: m <m@x>", {WORKFLOW: "on: push\n"})
    if rounds == 2:
        _commit(repo, "Round two", {"app.py": "print('two')\n", WORKFLOW: "on: [push]\n"})
    assert unpushed_paths(repo, "main", [published]) == sorted(
        [WORKFLOW, *(["app.py"] if rounds == 2 else [])]
    )

    head = drop_from_unpushed(repo, "main", [WORKFLOW], published=[published])

    assert head is not None
    if rounds == 1:  # only the workflow file changed: nothing left to commit
        assert head == published
    else:
        assert git(repo, "rev-parse", f"{head}~1").strip() == published
        assert git(repo, "log", "-1", "--format=%an%n%B", head).startswith("Test Author\nRound two")
        assert git(repo, "show", f"{head}:app.py") == "print('two')\n"
    assert WORKFLOW not in git(repo, "ls-tree", "-r", "--name-only", "HEAD").split()
    assert (repo / WORKFLOW).read_text() == ("on: push\n" if rounds == 1 else "on: [push]\n")
    status = git(repo, "status", "--porcelain")
    assert "?? .github/workflows/ci.yml" in status
    assert unpushed_paths(repo, "main", [published]) == (["app.py"] if rounds == 2 else [])


def test_nothing_to_drop_without_unpushed_commits(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    head = git(repo, "rev-parse", "HEAD").strip()
    assert drop_from_unpushed(repo, "main", [WORKFLOW], published=[head]) is None
    # The branch's first commit has no parent to go back to.
    assert drop_from_unpushed(repo, "main", [WORKFLOW], published=[]) is None
