"""The checkout before agents run: trusted, bot identity, no persisted token."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from amelia.action.runner_files import RunnerFiles
from amelia.action.workspace import Workspace
from amelia.errors import GitError, LeftoverProcessError
from amelia.git import basic_auth_header
from tests.git_helpers import git


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / "a.txt").write_text("a\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@x", "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "init")
    git(repo, "config", "http.https://github.com/.extraheader", basic_auth_header("ghs_secret"))
    git(repo, "config", "core.keepme", "yes")
    return repo


def test_prepare_removes_persisted_credentials_only(checkout: Path) -> None:
    workspace = Workspace(checkout, token="ghs_secret")
    workspace.prepare()

    config = (checkout / ".git" / "config").read_text()
    assert "extraheader" not in config and "ghs_secret" not in config
    assert "keepme = yes" in config
    assert "name = amelia[bot]" in config
    assert workspace.removed_credentials == ["http.https://github.com/.extraheader"]
    safe = (checkout.parent / "home" / ".gitconfig").read_text()
    assert str(checkout.resolve()) in safe


def test_prepare_twice_is_harmless(checkout: Path) -> None:
    Workspace(checkout).prepare()
    Workspace(checkout).prepare()
    safe = (checkout.parent / "home" / ".gitconfig").read_text()
    assert safe.count(str(checkout.resolve())) == 1


def test_commit_path_adds_the_trailer_and_skips_unchanged(checkout: Path) -> None:
    workspace = Workspace(checkout)
    workspace.prepare()
    (checkout / "plan.md").write_text("# plan\n")
    (checkout / "stray.txt").write_text("not mine\n")
    first = workspace.commit_path(
        "plan.md", "Plan issue #1", co_author="ada <ada@users.noreply.github.com>"
    )
    again = workspace.commit_path("plan.md", "Plan issue #1")

    assert first == again
    log = git(checkout, "log", "-1", "--format=%an <%ae>%n%B")
    assert log.startswith("amelia[bot] <amelia[bot]@users.noreply.github.com>\nPlan issue #1")
    assert "Co-authored-by: ada <ada@users.noreply.github.com>" in log
    assert git(checkout, "show", "--name-only", "--format=", "HEAD").split() == ["plan.md"]


def test_not_a_checkout_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git checkout"):
        Workspace(tmp_path).prepare()


def test_basic_auth_header_matches_actions_checkout() -> None:
    assert basic_auth_header("abc") == "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46YWJj"


def test_a_leftover_that_will_not_stop_fails_the_session_after_the_files_are_put_back(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's config change and its `GITHUB_ENV` line are undone even when something
    it left would not stop; the run fails, and the checkout's token stays hidden."""
    env_file = tmp_path / "set_env"
    env_file.write_text("EARLIER=1\n")
    workspace = Workspace(
        checkout, token="ghs_secret", runner_files=RunnerFiles.of({"GITHUB_ENV": str(env_file)})
    )
    workspace.prepare()

    def stuck() -> int:
        raise LeftoverProcessError("1 process(es) an agent left behind would not stop")

    async def agent_run() -> None:
        async with workspace.agent_session("developer"):
            git(checkout, "config", "core.pager", "sh -c id")
            env_file.write_text("EARLIER=1\nBASH_ENV=/tmp/x\n")
            monkeypatch.setattr(workspace.leftovers, "stop", stuck)

    with pytest.raises(LeftoverProcessError):
        asyncio.run(agent_run())
    assert "pager" not in (checkout / ".git" / "config").read_text()
    assert env_file.read_text() == "EARLIER=1\n"
    with pytest.raises(LeftoverProcessError):
        workspace.restore_credentials()
    assert "ghs_secret" not in (checkout / ".git" / "config").read_text()
