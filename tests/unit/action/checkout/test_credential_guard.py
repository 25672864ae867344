"""The credential guard: the checkout's persisted token hidden from agents by `prepare()`
and given back byte for byte by `restore()`; amelia's own git in the checkout; the token
handed out only for the proof that no agent process lives."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from amelia.action.checkout import AgentSessions, AgentsStopped, CredentialGuard
from amelia.errors import GitError
from amelia.git import BOT_EMAIL, basic_auth_header
from tests.git_helpers import IDENTITY, git

GITHUB_KEY = "http.https://github.com/.extraheader"
ENTERPRISE_KEY = "http.https://ghe.example/.extraheader"
TOKEN = "ghs_" + "PersistedByCheckout0123456789abcdefgh"


def _config(repo: Path) -> str:
    return (repo / ".git" / "config").read_text(encoding="utf-8")


def _section_lines(config: str, header: str) -> list[str]:
    """The lines of one `[section]` of a git config file, header included."""
    lines = config.splitlines()
    start = lines.index(header)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    return lines[start:end]


def _no_agents(guard: CredentialGuard) -> AgentsStopped:
    """The proof a run without agents gives: nothing to stop."""
    return AgentSessions(guard.git).end()


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.keepme", "yes")
    return repo


@pytest.fixture
def committed(checkout: Path) -> Path:
    (checkout / "a.txt").write_text("a\n")
    git(checkout, *IDENTITY, "add", ".")
    git(checkout, *IDENTITY, "commit", "-qm", "init")
    git(checkout, "config", GITHUB_KEY, basic_auth_header("ghs_secret"))
    return checkout


def test_prepare_removes_persisted_credentials_only(committed: Path) -> None:
    guard = CredentialGuard(committed, token="ghs_secret")
    guard.prepare()

    config = _config(committed)
    assert "extraheader" not in config and "ghs_secret" not in config
    assert "keepme = yes" in config
    assert "name = amelia[bot]" in config
    assert guard.removed_credentials == ["http.https://github.com/.extraheader"]
    safe = (committed.parent / "home" / ".gitconfig").read_text()
    assert str(committed.resolve()) in safe


def test_prepare_twice_is_harmless(committed: Path) -> None:
    CredentialGuard(committed).prepare()
    CredentialGuard(committed).prepare()
    safe = (committed.parent / "home" / ".gitconfig").read_text()
    assert safe.count(str(committed.resolve())) == 1


def test_not_a_checkout_is_a_git_error(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git checkout"):
        CredentialGuard(tmp_path).prepare()


def test_restore_gives_back_exactly_the_lines_actions_checkout_wrote(checkout: Path) -> None:
    header = basic_auth_header(TOKEN)
    git(checkout, "config", "--local", GITHUB_KEY, header)
    before = _config(checkout)
    section = _section_lines(before, '[http "https://github.com/"]')
    assert section == ['[http "https://github.com/"]', f"\textraheader = {header}"]

    guard = CredentialGuard(checkout)
    guard.prepare()
    hidden = _config(checkout)
    assert "extraheader" not in hidden and "PersistedByCheckout" not in hidden
    assert guard.removed_credentials == [GITHUB_KEY]

    assert "amelia[bot]" in hidden  # the bot identity, for the run's commits

    guard.restore(_no_agents(guard))
    # Byte for byte what actions/checkout wrote: the bot identity is gone again too.
    assert _config(checkout) == before


def test_restore_keeps_every_value_of_every_url_in_order(checkout: Path) -> None:
    git(checkout, "config", "--local", "--add", GITHUB_KEY, "AUTHORIZATION: basic first")
    git(checkout, "config", "--local", "--add", GITHUB_KEY, "X-Second: with = and spaces ")
    git(checkout, "config", "--local", "--add", ENTERPRISE_KEY, "AUTHORIZATION: basic other")
    guard = CredentialGuard(checkout)
    guard.prepare()
    assert guard.removed_credentials == [GITHUB_KEY, ENTERPRISE_KEY]

    guard.restore(_no_agents(guard))
    assert git(checkout, "config", "--local", "--get-all", GITHUB_KEY).splitlines() == [
        "AUTHORIZATION: basic first",
        "X-Second: with = and spaces ",
    ]
    assert git(checkout, "config", "--local", "--get-all", ENTERPRISE_KEY) == (
        "AUTHORIZATION: basic other\n"
    )


def test_restoring_twice_adds_nothing_more(checkout: Path) -> None:
    git(checkout, "config", "--local", GITHUB_KEY, "AUTHORIZATION: basic once")
    guard = CredentialGuard(checkout)
    guard.prepare()
    guard.restore(_no_agents(guard))
    guard.restore(_no_agents(guard))

    values = git(checkout, "config", "--local", "--get-all", GITHUB_KEY).splitlines()
    assert values == ["AUTHORIZATION: basic once"]


def test_without_persisted_credentials_restore_gives_back_the_file_as_it_was(
    checkout: Path,
) -> None:
    before = _config(checkout)
    guard = CredentialGuard(checkout)
    guard.prepare()
    guard.restore(_no_agents(guard))

    assert guard.removed_credentials == []
    assert _config(checkout) == before


def test_restore_before_prepare_changes_nothing(checkout: Path) -> None:
    git(checkout, "config", "--local", GITHUB_KEY, "AUTHORIZATION: basic untouched")
    before = _config(checkout)
    guard = CredentialGuard(checkout)
    guard.restore(_no_agents(guard))

    assert _config(checkout) == before


def test_earlier_steps_credential_files_are_emptied_on_a_runner_only(committed: Path) -> None:
    npmrc = committed / ".npmrc"
    npmrc.write_text("//registry.npmjs.org/:_authToken=npm_secret\n")
    CredentialGuard(committed, on_runner=False).hide_earlier_credentials()
    assert "npm_secret" in npmrc.read_text()

    guard = CredentialGuard(committed)
    guard.hide_earlier_credentials()
    assert npmrc.read_text() == "" and guard.emptied_files == [npmrc.resolve()]
    guard.restore(_no_agents(guard))
    assert "npm_secret" in npmrc.read_text()


def test_the_token_goes_only_to_the_server_amelia_names_and_only_for_a_fresh_proof(
    committed: Path,
) -> None:
    guard = CredentialGuard(committed, token=TOKEN, remote_url="https://github.example/o/r")
    sessions = AgentSessions(guard.git)

    remote = guard.authenticated(sessions.stop_agents())
    assert remote.auth == basic_auth_header(TOKEN) and remote.address() == guard.remote_url
    assert not guard.git.is_authenticated and guard.git.address() == "origin"

    stopped = sessions.stop_agents()

    async def agent_run() -> None:
        async with sessions.around("developer"):
            # While an agent runs, a proof made before it is worth nothing, and so is one
            # made during it.
            with pytest.raises(RuntimeError, match="no token"):
                guard.authenticated(stopped)
            with pytest.raises(RuntimeError, match="no token"):
                guard.authenticated(sessions.stop_agents())

    asyncio.run(agent_run())
    # After it, the old proof stays out of date: the agent may have left something to stop.
    with pytest.raises(RuntimeError, match="no token"):
        guard.authenticated(stopped)
    with pytest.raises(RuntimeError, match="nothing restored"):
        guard.restore(stopped)
    assert guard.authenticated(sessions.stop_agents()).is_authenticated


def test_amelias_git_is_isolated_on_a_runner_and_trusts_the_agents_checkout_elsewhere(
    committed: Path, tmp_path: Path
) -> None:
    private = tmp_path / "private.gitconfig"
    private.write_bytes(b"")

    on_runner = CredentialGuard(committed, global_config=private)
    assert on_runner.git.isolation is not None
    assert on_runner.git.isolation.global_config == private
    assert on_runner.own_config_files() == (private,)
    own = CredentialGuard(committed, on_runner=False, trust_checkout=True)
    assert own.git.isolation is None
    assert own.git.config == (("safe.directory", str(committed.resolve())),)
    assert CredentialGuard(committed, on_runner=False).git.config == ()
    # The bot's address is the one of the GitHub the run talks to.
    assert CredentialGuard(committed).git.email == BOT_EMAIL
    ghe = CredentialGuard(committed, global_config=private, server_url="https://ghe.example.com")
    address = "amelia[bot]@users.noreply.ghe.example.com"
    assert ghe.git.email == address

    ghe.prepare()
    # Trusted in amelia's own global config, not the runner's; the bot named for that GitHub.
    assert str(committed.resolve()) in private.read_text()
    assert not (tmp_path / "home" / ".gitconfig").exists()
    assert git(committed, "config", "user.email").strip() == address
