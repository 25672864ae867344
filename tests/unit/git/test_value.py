"""The Git value: what a command gets beyond the hardened defaults is in the value it is
handed, derived without changing the value it came from, and reaches that git process
only."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amelia.git import (
    BOT_EMAIL,
    Git,
    basic_auth_header,
    commit_paths,
    mark_safe_directory,
    run_git,
)
from tests.git_helpers import git, init_repo

TOKEN = "ghs_" + "x" * 36


def _get(repo: Git | Path, key: str) -> str:
    """The value git sees for `key` (the last one given)."""
    return run_git(["config", "--get", key], repo, ok_codes=(0, 1)).strip()


def test_deriving_a_value_leaves_the_one_it_came_from_as_it_was(tmp_path: Path) -> None:
    plain = Git(tmp_path)
    configured = plain.with_config({"x.y": "z"})
    elsewhere = configured.with_remote("https://example.invalid/o/r").for_server(
        "https://ghe.example"
    )

    assert plain == Git(tmp_path) and plain.config == () and plain.remotes == ()
    assert configured.config == (("x.y", "z"),) and configured.remotes == ()
    assert elsewhere.config == configured.config
    assert elsewhere.email == "amelia[bot]@users.noreply.ghe.example"
    assert configured.email == BOT_EMAIL
    with pytest.raises(AttributeError):
        plain.path = tmp_path / "other"  # type: ignore[misc]


def test_a_values_config_reaches_its_git_and_no_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "Someone")
    configured = Git(tmp_path).with_config({"x.y": "z"}).with_config({"x.y": "later"})

    # Both entries, in order: the later one wins, as in a config file.
    every = run_git(["config", "--get-all", "x.y"], configured).splitlines()
    assert every == ["z", "later"] and _get(configured, "x.y") == "later"
    # The caller's own GIT_CONFIG_* entries still apply, and this process is untouched.
    assert _get(configured, "user.name") == "Someone"
    assert os.environ["GIT_CONFIG_COUNT"] == "1"
    assert _get(tmp_path, "x.y") == "" and _get(Git(tmp_path), "x.y") == ""


def test_only_an_authenticated_value_carries_the_header_and_never_shows_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GIT_CONFIG_COUNT", raising=False)
    plain = Git(tmp_path)
    authenticated = plain.authenticated(TOKEN)

    assert _get(authenticated, "http.extraheader") == basic_auth_header(TOKEN)
    assert authenticated.is_authenticated and not plain.is_authenticated
    assert _get(plain, "http.extraheader") == ""
    # Only the git process gets it: agents' tools inherit this process's environment.
    assert "GIT_CONFIG_COUNT" not in os.environ
    assert not any(TOKEN in value for value in os.environ.values())
    assert TOKEN not in repr(authenticated) and basic_auth_header(TOKEN) not in repr(authenticated)
    # No token (a public repository): the same value, unauthenticated.
    assert plain.authenticated(None) is plain and plain.authenticated("") is plain


def test_a_value_at_another_path_keeps_its_configuration(tmp_path: Path) -> None:
    first = init_repo(tmp_path / "first")
    second = init_repo(tmp_path / "second")
    value = Git(first).with_config({"x.y": "z"}).with_remote("/elsewhere").authenticated(TOKEN)

    moved = value.at(second)

    assert moved.path == second
    assert (moved.config, moved.remotes, moved.auth) == (value.config, value.remotes, value.auth)
    assert Path(run_git(["rev-parse", "--show-toplevel"], moved).strip()) == second.resolve()


def test_a_remote_named_by_the_value_is_the_address_git_is_given(tmp_path: Path) -> None:
    value = Git(tmp_path).with_remote("/first").with_remote("/second")

    assert value.address() == "/second"
    assert value.address(remote="upstream") == "upstream"
    assert Git(tmp_path).address() == "origin"


def test_the_bot_commits_with_the_address_of_the_values_github(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    (repo / "a.txt").write_text("a\n")
    value = Git(repo).for_server("https://ghe.example.com")

    commit_paths(value, ["a.txt"], "Add a")

    author = git(repo, "log", "-1", "--format=%an <%ae>|%cn <%ce>").strip()
    bot = "amelia[bot] <amelia[bot]@users.noreply.ghe.example.com>"
    assert author == f"{bot}|{bot}"


def test_a_global_config_command_of_an_isolated_value_writes_amelias_own_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    ours = tmp_path / "ours.gitconfig"
    ours.write_bytes(b"")
    repo = init_repo(tmp_path / "repo")

    mark_safe_directory(Git(repo).isolated(ours))

    assert str(repo.resolve()) in ours.read_text()
    assert not (home / ".gitconfig").exists()


def test_basic_auth_header_matches_actions_checkout() -> None:
    assert basic_auth_header("abc") == "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46YWJj"
