"""Agent sessions: the worktree recorded before the first agent, what an agent may not keep
put back after every run, what it left running stopped, and the proof of that."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from amelia.action.checkout import AgentSessions, Checkout
from amelia.action.checkout._runner_files import RunnerFiles
from amelia.errors import LeftoverProcessError
from amelia.git import Git, WorktreeListing, basic_auth_header
from tests.git_helpers import IDENTITY, git, init_repo


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "config", "http.https://github.com/.extraheader", basic_auth_header("ghs_secret"))
    git(repo, "config", "core.keepme", "yes")
    return repo


def _run(sessions: AgentSessions, role: str, work: object = None) -> None:
    async def agent_run() -> None:
        async with sessions.around(role):
            if callable(work):
                work()

    asyncio.run(agent_run())


def test_a_leftover_that_will_not_stop_fails_the_session_after_the_files_are_put_back(
    checkout: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's config change and its `GITHUB_ENV` line are undone even when something
    it left would not stop; the run fails, and the checkout's token stays hidden."""
    env_file = tmp_path / "set_env"
    env_file.write_text("EARLIER=1\n")
    whole = Checkout(
        checkout, token="ghs_secret", runner_files=RunnerFiles.of({"GITHUB_ENV": str(env_file)})
    )
    whole.prepare()

    def stuck() -> int:
        raise LeftoverProcessError("1 process(es) an agent left behind would not stop")

    async def agent_run() -> None:
        async with whole.sessions.around("developer"):
            git(checkout, "config", "core.pager", "sh -c id")
            env_file.write_text("EARLIER=1\nBASH_ENV=/tmp/x\n")
            monkeypatch.setattr(whole.sessions.leftovers, "stop", stuck)

    with pytest.raises(LeftoverProcessError):
        asyncio.run(agent_run())
    assert "pager" not in (checkout / ".git" / "config").read_text()
    assert env_file.read_text() == "EARLIER=1\n"
    with pytest.raises(LeftoverProcessError):
        whole.restore()
    assert "ghs_secret" not in (checkout / ".git" / "config").read_text()
    # Nor is the token handed out for a push while the leftover lives.
    with pytest.raises(LeftoverProcessError):
        whole.remote()


def test_config_files_an_agent_writes_are_put_back_before_amelias_git_runs(
    checkout: Path, tmp_path: Path
) -> None:
    private = tmp_path / "private.gitconfig"
    private.write_text("[safe]\n\tdirectory = /x\n")
    config = checkout / ".git" / "config"
    before = config.read_bytes(), private.read_bytes()
    sessions = AgentSessions(Git(checkout), own_config_files=(private,))

    def plant() -> None:
        git(checkout, "config", "remote.origin.pushurl", "/elsewhere")
        private.write_text("[core]\n\tsshCommand = sh -c id\n")
        (checkout / ".git" / "config.worktree").write_text("[core]\n\tpager = id\n")

    _run(sessions, "developer", plant)

    assert (config.read_bytes(), private.read_bytes()) == before
    assert not (checkout / ".git" / "config.worktree").exists()


def test_the_runner_files_are_put_back_after_every_run_and_those_amelia_never_writes_at_the_end(
    checkout: Path, tmp_path: Path
) -> None:
    env_file, output = tmp_path / "set_env", tmp_path / "output"
    env_file.write_text("EARLIER=1\n")
    output.write_text("")
    files = RunnerFiles.of({"GITHUB_ENV": str(env_file), "GITHUB_OUTPUT": str(output)})
    sessions = AgentSessions(Git(checkout), runner_files=files)

    def write_both() -> None:
        env_file.write_text("NODE_OPTIONS=--require /tmp/x.js\n")
        output.write_text("verdict=approved\n")

    _run(sessions, "developer", write_both)
    assert env_file.read_text() == "EARLIER=1\n" and output.read_text() == ""
    # Between agent runs amelia writes its outputs; something else writes GITHUB_ENV.
    output.write_text("branch=amelia/issue-1\n")
    env_file.write_text("EARLIER=1\nLATER=1\n")
    _run(sessions, "reviewer", write_both)
    assert output.read_text() == "branch=amelia/issue-1\n"
    assert env_file.read_text() == "EARLIER=1\nLATER=1\n"

    sessions.end()
    # What amelia never writes goes back to how it was before the first agent.
    assert env_file.read_text() == "EARLIER=1\n"
    assert output.read_text() == "branch=amelia/issue-1\n"


def test_the_worktree_and_the_servers_commits_are_recorded_before_the_first_run_only(
    tmp_path: Path,
) -> None:
    origin = init_repo(tmp_path / "origin", {"README.md": "# r\n"})
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    (clone / "build.log").write_text("an earlier step's file\n")
    earlier = git(clone, "rev-parse", "origin/main").strip()
    first_calls: list[int] = []
    sessions = AgentSessions(Git(clone), before_first=lambda _listing: first_calls.append(1))
    assert sessions.baseline is None and sessions.published_at_start is None
    assert sessions.preexisting_paths() == frozenset()

    _run(sessions, "developer", lambda: (clone / "new.py").write_text("x = 1\n"))
    # A ref an agent adds to `refs/remotes` changes nothing amelia knew.
    git(clone, *IDENTITY, "commit", "-q", "--allow-empty", "-m", "agent")
    git(clone, "update-ref", "refs/remotes/origin/fake", "HEAD")
    _run(sessions, "reviewer")

    assert first_calls == [1]
    assert sessions.published_at_start == (earlier,)
    assert sessions.preexisting_paths() == frozenset({"build.log"})
    assert sessions.baseline is not None
    assert sessions.baseline.changes().paths == ("new.py",)


def test_a_proof_holds_until_an_agent_runs_and_a_run_that_cannot_start_leaves_none_running(
    checkout: Path,
) -> None:
    def refuse(_listing: WorktreeListing) -> None:
        raise LeftoverProcessError("the checkout cannot be handed over")

    sessions = AgentSessions(Git(checkout), before_first=refuse)
    stopped = sessions.stop_agents()
    assert stopped.holds()

    with pytest.raises(LeftoverProcessError):
        _run(sessions, "developer")

    assert not stopped.holds() and sessions.running == 0
    assert sessions.stop_agents().holds() and sessions.end().holds()
