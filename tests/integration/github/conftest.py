"""A local bare repository as `origin`, git configuration isolated from the machine's, and
PyGithub pointed at the local GitHub."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from github import Auth, Github

from amelia.testing.github_server import FakeGitHubServer
from tests.git_helpers import git


def pygithub(server: FakeGitHubServer, *, token: str = "t", per_page: int = 30) -> Github:
    """PyGithub itself against `server`, without its pauses between requests (a local
    server) and without its own retries."""
    return Github(
        base_url=server.url,
        auth=Auth.Token(token),
        retry=None,
        per_page=per_page,
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


@dataclass(frozen=True)
class Origin:
    bare: Path
    root: Path

    def clone(self, name: str) -> Path:
        target = self.root / name
        git(self.root, "clone", "--quiet", str(self.bare), str(target))
        git(target, "config", "user.name", "Someone Else")
        git(target, "config", "user.email", "someone@example.invalid")
        return target

    def show(self, ref: str, path: str) -> str:
        return git(self.bare, "show", f"{ref}:{path}")


@pytest.fixture(autouse=True)
def isolated_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "gitconfig"
    config.write_text("[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    return config


@pytest.fixture
def origin(tmp_path: Path, isolated_git_config: Path) -> Origin:
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "--quiet", "--bare", "-b", "main", str(bare))
    made = Origin(bare, tmp_path)
    seed = made.clone("seed")
    (seed / "README.md").write_text("# app\n")
    git(seed, "add", "README.md")
    git(seed, "commit", "--quiet", "-m", "Start")
    git(seed, "push", "--quiet", "origin", "main")
    return made
