"""Every way a checkout's git configuration holds the job's token: hidden, then given back.

The layouts are staged as actions/checkout writes them (v4: the header in `.git/config`;
v6+: `includeIf "gitdir:…"` entries, for the runner's and for the container's paths, to
`$RUNNER_TEMP/git-credentials-<uuid>.config`), plus what earlier steps add: credential
helpers (inline, `store` with its file, in the global config), URLs with a token in them,
submodules. While hidden, git in the checkout finds no credential and no file that holds
one; afterwards every file is back byte for byte, with its mode, owner and times.
"""

from __future__ import annotations

import base64
import os
import uuid
from pathlib import Path

import pytest

from amelia.git import HiddenCredentials, hide_credentials, run_git
from tests.git_helpers import git, init_repo

TOKEN = "ghs_" + "CheckoutPersistedToken0123456789abcd"
HEADER = "AUTHORIZATION: basic " + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
SERVER = "https://github.com/"


def _everything_git_shows(repo: Path) -> str:
    """What git in the checkout shows of its configuration (with includes, and the global
    config of `$HOME`), and every file that names."""
    shown = run_git(["config", "--list", "--show-origin", "--includes"], repo, ok_codes=(0, 1))
    for line in shown.splitlines():
        where = line.split("\t", 1)[0].removeprefix("file:")
        if where and Path(where).is_file():
            shown += Path(where).read_text(errors="replace")
    return shown


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home = tmp_path / "home"
    home.mkdir()
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    repo = init_repo(tmp_path / "workspace", {"README.md": "# demo\n"})
    git(repo, "remote", "add", "origin", "https://github.com/octo/app")
    return {"home": home, "temp": temp, "repo": repo}


def _checkout_v6(repo: Path, temp: Path, *, container: bool) -> Path:
    """The files and entries actions/checkout v6 writes; `container`: as a container action
    sees them (the runner's paths lead nowhere, the container's match)."""
    name = f"git-credentials-{uuid.uuid4()}.config"
    stored = temp / name
    git(repo, "config", "--file", str(stored), f"http.{SERVER}.extraheader", HEADER)
    live = (str(repo / ".git"), str(stored))
    runner = ("/home/runner/work/app/app/.git", f"/home/runner/work/_temp/{name}")
    inside = ("/github/workspace/.git", f"/github/runner_temp/{name}")
    if container:
        inside = live
    else:
        runner = live
    for git_dir, path in (runner, inside):
        git(repo, "config", f"includeIf.gitdir:{git_dir}.path", path)
        git(repo, "config", f"includeIf.gitdir:{git_dir}/worktrees/*.path", path)
    return stored


def _snapshot(*paths: Path) -> dict[Path, tuple[bytes, int, int, int, int]]:
    found = {}
    for path in paths:
        info = path.stat()
        found[path] = (path.read_bytes(), info.st_mode, info.st_uid, info.st_gid, info.st_mtime_ns)
    return found


@pytest.mark.parametrize("container", [False, True], ids=["runner-paths", "container-paths"])
def test_checkout_v6_include_and_credentials_file(runner: dict[str, Path], container: bool) -> None:
    repo, temp = runner["repo"], runner["temp"]
    stored = _checkout_v6(repo, temp, container=container)
    os.chown(stored, 1001, 127)  # the runner's uid wrote it
    stored.chmod(0o644)
    before = _snapshot(repo / ".git" / "config", stored)
    # The premise: git in the checkout finds the header through the include.
    assert HEADER in run_git(["config", "--get-regexp", "extraheader"], repo)

    hidden = hide_credentials(repo)

    assert run_git(["config", "--get-regexp", "extraheader"], repo, ok_codes=(0, 1)) == ""
    shown = _everything_git_shows(repo)
    assert TOKEN not in shown and HEADER not in shown and stored.name not in shown
    assert stored.read_bytes() == b""  # the file itself holds nothing any more
    assert hidden.files == [stored]
    assert len(hidden.keys) == 4

    hidden.restore()
    assert _snapshot(repo / ".git" / "config", stored) == before


def test_checkout_v4_header_in_the_config(runner: dict[str, Path]) -> None:
    repo = runner["repo"]
    git(repo, "config", f"http.{SERVER}.extraheader", HEADER)
    git(repo, "config", "--add", "http.https://ghe.example/.extraheader", "X-Other: value")
    before = _snapshot(repo / ".git" / "config")

    hidden = hide_credentials(repo)
    assert run_git(["config", "--get-regexp", "extraheader"], repo, ok_codes=(0, 1)) == ""
    assert hidden.keys == [f"http.{SERVER}.extraheader", "http.https://ghe.example/.extraheader"]
    assert "https://github.com/octo/app" in run_git(["remote", "get-url", "origin"], repo)

    hidden.restore()
    hidden.restore()  # once only
    assert _snapshot(repo / ".git" / "config") == before


def test_credential_helpers_urls_and_store_files_of_earlier_steps(
    runner: dict[str, Path],
) -> None:
    repo, temp, home = runner["repo"], runner["temp"], runner["home"]
    store = temp / "stored-credentials"
    store.write_text(f"https://x-access-token:{TOKEN}@github.com\n")
    default_store = home / ".git-credentials"
    default_store.write_text(f"https://x-access-token:{TOKEN}@github.com\n")
    git(repo, "config", "credential.helper", f"store --file={store}")
    git(repo, "config", "--add", "credential.https://github.com.helper", "store")
    git(repo, "config", "remote.mirror.url", f"https://x-access-token:{TOKEN}@github.com/o/r")
    git(repo, "config", f"url.https://{TOKEN}@github.com/.insteadOf", "https://github.com/")
    (home / ".gitconfig").write_text(
        f'[credential]\n\thelper = "!f() {{ echo password={TOKEN}; }}; f"\n[user]\n\tname = Me\n'
    )
    files = [repo / ".git" / "config", home / ".gitconfig", store, default_store]
    before = _snapshot(*files)

    hidden = hide_credentials(repo, global_configs=[home / ".gitconfig"], home=home)

    shown = _everything_git_shows(repo)
    assert TOKEN not in shown
    for scope in ("--local", "--global"):
        assert "credential." not in run_git(["config", scope, "--list"], repo)
    assert store.read_bytes() == default_store.read_bytes() == b""
    # What is not a credential stays: origin, the mirror without its token, the user name.
    assert run_git(["remote", "get-url", "mirror"], repo).strip() == "https://github.com/o/r"
    assert run_git(["config", "user.name"], repo).strip() == "Me"

    hidden.restore()
    assert _snapshot(*files) == before


def test_submodules_and_nested_includes(runner: dict[str, Path], tmp_path: Path) -> None:
    repo, temp = runner["repo"], runner["temp"]
    modules = repo / ".git" / "modules" / "lib"
    modules.mkdir(parents=True)
    (modules / "HEAD").write_text("ref: refs/heads/main\n")
    (modules / "config").write_text(f'[http "{SERVER}"]\n\textraheader = {HEADER}\n')
    inner = temp / "inner.config"
    inner.write_text(f'[http "{SERVER}"]\n\textraheader = {HEADER}\n')
    outer = tmp_path / "outer.config"
    outer.write_text(f"[include]\n\tpath = {inner}\n")
    git(repo, "config", "include.path", str(outer))
    harmless = tmp_path / "harmless.config"
    harmless.write_text("[core]\n\tautocrlf = false\n")
    git(repo, "config", "--add", "include.path", str(harmless))
    files = [repo / ".git" / "config", modules / "config", inner, outer, harmless]
    before = _snapshot(*files)

    hidden = hide_credentials(repo)

    assert TOKEN not in (modules / "config").read_text()
    assert inner.read_bytes() == outer.read_bytes() == b""
    assert harmless.read_bytes() == before[harmless][0]  # holds no credential: left alone
    assert run_git(["config", "--get-all", "include.path"], repo).strip() == str(harmless)

    hidden.restore()
    assert _snapshot(*files) == before


def test_restore_puts_back_a_file_removed_or_replaced_meanwhile(
    runner: dict[str, Path], tmp_path: Path
) -> None:
    repo, temp = runner["repo"], runner["temp"]
    stored = _checkout_v6(repo, temp, container=False)
    before = _snapshot(repo / ".git" / "config", stored)
    hidden = HiddenCredentials()
    hide_credentials(repo, into=hidden)
    decoy = tmp_path / "decoy"
    decoy.write_text("not to be overwritten")
    stored.unlink()
    (repo / ".git" / "config").unlink()
    (repo / ".git" / "config").symlink_to(decoy)

    hidden.restore()

    assert _snapshot(repo / ".git" / "config", stored) == before
    assert decoy.read_text() == "not to be overwritten"
    assert not (repo / ".git" / "config").is_symlink()
