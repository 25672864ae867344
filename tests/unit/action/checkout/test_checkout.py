"""The checkout as the engine builds it: its parts wired together, local commands without
the token, fetches and pushes with it only after every agent process was stopped, and the
checkout given back as it was."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from amelia.action.checkout import Checkout
from amelia.git import Git, basic_auth_header, run_git
from tests.git_helpers import git, init_repo


def test_remote_reads_carry_the_token_only_in_the_value_remote_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def header_git_sees(git: Git) -> str:
        return run_git(["config", "--get", "http.extraheader"], git, ok_codes=(0, 1))

    monkeypatch.delenv("GIT_CONFIG_COUNT", raising=False)
    token = "ghs_" + "x" * 36
    checkout = Checkout(tmp_path, token=token)
    remote = checkout.remote()
    assert header_git_sees(remote).strip() == basic_auth_header(token)
    # Only the git processes get it: agents' tools inherit this process's environment.
    assert "GIT_CONFIG_COUNT" not in os.environ
    assert not any(token in value for value in os.environ.values())
    assert header_git_sees(checkout.git) == ""
    assert header_git_sees(Checkout(tmp_path).remote()) == ""
    assert "GIT_CONFIG_COUNT" not in os.environ


def test_the_parts_share_one_git_and_the_checkout_is_given_back_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = init_repo(tmp_path / "repo", {"a.txt": "a\n"})
    git(repo, "config", "http.https://github.com/.extraheader", basic_auth_header("ghs_secret"))
    (repo / ".npmrc").write_text("//registry.npmjs.org/:_authToken=npm_secret\n")
    config = (repo / ".git" / "config").read_bytes()
    private = tmp_path / "private.gitconfig"
    private.write_bytes(b"")
    checkout = Checkout(
        repo,
        token="ghs_secret",
        remote_url="https://github.example/o/r",
        global_config=private,
        server_url="https://github.example",
    )
    assert checkout.path == repo.resolve()
    assert checkout.git is checkout.guard.git is checkout.sessions.git
    assert checkout.publisher.git is checkout.git

    checkout.prepare()
    seen: list[str] = []

    async def agent_run() -> None:
        async with checkout.sessions.around("developer"):
            seen.append((repo / ".npmrc").read_text())
            seen.append((repo / ".git" / "config").read_text())

    asyncio.run(agent_run())
    assert seen[0] == "" and "ghs_secret" not in seen[1]
    assert checkout.remote().address() == "https://github.example/o/r"

    checkout.restore()
    assert (repo / ".git" / "config").read_bytes() == config
    assert "npm_secret" in (repo / ".npmrc").read_text()
