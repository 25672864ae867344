"""The checkout's persisted token: hidden from agents by `prepare()`, given back afterwards."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.action.workspace import Workspace
from amelia.git import basic_auth_header
from tests.git_helpers import git

GITHUB_KEY = "http.https://github.com/.extraheader"
ENTERPRISE_KEY = "http.https://ghe.example/.extraheader"


def _config(repo: Path) -> str:
    return (repo / ".git" / "config").read_text(encoding="utf-8")


def _section_lines(config: str, header: str) -> list[str]:
    """The lines of one `[section]` of a git config file, header included."""
    lines = config.splitlines()
    start = lines.index(header)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    return lines[start:end]


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "core.keepme", "yes")
    return repo


def test_restore_gives_back_exactly_the_lines_actions_checkout_wrote(checkout: Path) -> None:
    header = basic_auth_header("ghs_" + "PersistedByCheckout0123456789abcdefgh")
    git(checkout, "config", "--local", GITHUB_KEY, header)
    before = _config(checkout)
    section = _section_lines(before, '[http "https://github.com/"]')
    assert section == ['[http "https://github.com/"]', f"\textraheader = {header}"]

    workspace = Workspace(checkout)
    workspace.prepare()
    hidden = _config(checkout)
    assert "extraheader" not in hidden and "PersistedByCheckout" not in hidden
    assert workspace.removed_credentials == [GITHUB_KEY]

    assert "amelia[bot]" in hidden  # the bot identity, for the run's commits

    workspace.restore_credentials()
    # Byte for byte what actions/checkout wrote: the bot identity is gone again too.
    assert _config(checkout) == before


def test_restore_keeps_every_value_of_every_url_in_order(checkout: Path) -> None:
    git(checkout, "config", "--local", "--add", GITHUB_KEY, "AUTHORIZATION: basic first")
    git(checkout, "config", "--local", "--add", GITHUB_KEY, "X-Second: with = and spaces ")
    git(checkout, "config", "--local", "--add", ENTERPRISE_KEY, "AUTHORIZATION: basic other")
    workspace = Workspace(checkout)
    workspace.prepare()
    assert workspace.removed_credentials == [GITHUB_KEY, ENTERPRISE_KEY]

    workspace.restore_credentials()
    assert git(checkout, "config", "--local", "--get-all", GITHUB_KEY).splitlines() == [
        "AUTHORIZATION: basic first",
        "X-Second: with = and spaces ",
    ]
    assert git(checkout, "config", "--local", "--get-all", ENTERPRISE_KEY) == (
        "AUTHORIZATION: basic other\n"
    )


def test_restoring_twice_adds_nothing_more(checkout: Path) -> None:
    git(checkout, "config", "--local", GITHUB_KEY, "AUTHORIZATION: basic once")
    workspace = Workspace(checkout)
    workspace.prepare()
    workspace.restore_credentials()
    workspace.restore_credentials()

    values = git(checkout, "config", "--local", "--get-all", GITHUB_KEY).splitlines()
    assert values == ["AUTHORIZATION: basic once"]


def test_without_persisted_credentials_restore_gives_back_the_file_as_it_was(
    checkout: Path,
) -> None:
    before = _config(checkout)
    workspace = Workspace(checkout)
    workspace.prepare()
    workspace.restore_credentials()

    assert workspace.removed_credentials == []
    assert _config(checkout) == before


def test_restore_before_prepare_changes_nothing(checkout: Path) -> None:
    git(checkout, "config", "--local", GITHUB_KEY, "AUTHORIZATION: basic untouched")
    before = _config(checkout)
    Workspace(checkout).restore_credentials()

    assert _config(checkout) == before
