"""The git runner: hardened environment, bytes as git writes them, the config of the Git
value each command is given, redacted failures, and retries of reads from a remote only
when the network failed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amelia.errors import GitError
from amelia.git import (
    Git,
    NetworkRetry,
    display,
    display_path,
    run_git,
    run_git_bytes,
    run_git_paths,
    run_network_read,
    split_paths,
)
from tests.git_helpers import git

LATIN1_NAME = b"caf\xe9.txt"  # "café" in Latin-1: not UTF-8


def test_git_gets_a_hardened_environment(tmp_path: Path) -> None:
    assert run_git(["var", "GIT_PAGER"], tmp_path).strip() == "cat"
    script = 'printf "%s %s" "$GIT_TERMINAL_PROMPT" "$LC_ALL"'
    assert run_git(["env"], Git(tmp_path).with_config({"alias.env": f"!{script}"})) == "0 C"


def test_a_command_works_on_its_repository_whatever_git_dir_this_process_has(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As amelia started from another repository's pre-commit hook inherits it.
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", "-b", "main", str(other))
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    monkeypatch.setenv("GIT_INDEX_FILE", str(other / ".git" / "index.lock"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(other / ".git" / "objects"))
    (repo / "new.txt").write_text("new\n", encoding="utf-8")
    identity = {"user.name": "amelia", "user.email": "amelia@example.invalid"}

    run_git(["add", "new.txt"], repo)
    run_git(["commit", "-qm", "Add new.txt"], Git(repo).with_config(identity))

    assert run_git(["log", "-1", "--format=%s"], repo).strip() == "Add new.txt"
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        monkeypatch.delenv(name)
    assert not (other / ".git" / "index.lock").exists()
    assert git(other, "count-objects").startswith("0 objects")
    assert git(other, "for-each-ref") == ""  # no commit, no branch


def test_names_and_contents_that_are_not_utf8_survive(repo: Path) -> None:
    target = repo / os.fsdecode(LATIN1_NAME)
    target.write_bytes(b"cr\xe8me br\xfbl\xe9e\n")
    git(repo, "add", "--all")
    git(repo, "commit", "-qm", "Latin-1")

    names = run_git_paths(["ls-files", "-z"], repo)
    latin = [name for name in names if os.fsencode(name) == LATIN1_NAME]
    assert len(latin) == 1
    # The decoded name is a real path: git and the filesystem find the same file again.
    assert run_git_bytes(["show", f"HEAD:{latin[0]}"], repo) == b"cr\xe8me br\xfbl\xe9e\n"
    assert Path(repo / latin[0]).read_bytes() == b"cr\xe8me br\xfbl\xe9e\n"
    assert display_path(latin[0]) == "caf\ufffd.txt"
    # Shown as text, the undecodable bytes become U+FFFD instead of an exception.
    shown = run_git(["show", "HEAD"], repo)
    assert "cr\ufffdme" in shown


def test_split_paths_keeps_names_with_newlines_and_spaces() -> None:
    assert split_paths(b"a b\0c\nd\0\0") == ["a b", "c\nd"]
    assert display(b"\xff") == "\ufffd"


def test_paths_need_nul_separated_output(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="-z"):
        run_git_paths(["ls-files"], tmp_path)


def test_config_reaches_git_and_not_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "Someone")
    git = Git(tmp_path).with_config({"user.email": "bot@example.invalid"}).with_config({"x.y": "z"})
    assert run_git(["config", "--get", "user.email"], git).strip() == "bot@example.invalid"
    assert run_git(["config", "--get", "x.y"], git).strip() == "z"
    # The caller's own GIT_CONFIG_* entries still apply, and this process is untouched.
    assert run_git(["config", "--get", "user.name"], git).strip() == "Someone"
    assert os.environ["GIT_CONFIG_COUNT"] == "1"
    assert run_git(["config", "--get", "x.y"], tmp_path, ok_codes=(0, 1)) == ""


def test_a_failure_names_the_subcommand_and_masks_credentials(tmp_path: Path) -> None:
    url = "https://x-access-token:s3cr3t-t0ken-value@127.0.0.1:9/o/r.git"
    with pytest.raises(GitError) as caught:
        run_git(["-c", "http.lowSpeedTime=1", "ls-remote", url], tmp_path)
    assert caught.value.message.startswith("git ls-remote failed: ")
    assert "s3cr3t-t0ken-value" not in caught.value.message
    assert "s3cr3t-t0ken-value" not in caught.value.stderr


def test_a_command_over_its_timeout_is_stopped(tmp_path: Path) -> None:
    slow = Git(tmp_path).with_config({"alias.slow": "!sleep 5"})
    with pytest.raises(GitError, match=r"git slow timed out after 0s"):
        run_git(["slow"], slow, timeout=0.2)


def test_reads_from_an_unreachable_remote_are_retried(tmp_path: Path) -> None:
    waits: list[float] = []
    policy = NetworkRetry(attempts=3, backoff=0.25, sleep=waits.append)
    with pytest.raises(GitError, match="ls-remote"):
        run_network_read(["ls-remote", "http://127.0.0.1:9/o/r.git"], tmp_path, retry=policy)
    assert waits == [0.25, 0.5]


def test_reads_are_retried_as_the_git_value_says(tmp_path: Path) -> None:
    waits: list[float] = []
    policy = NetworkRetry(attempts=2, backoff=0.1, sleep=waits.append)
    patient = Git(tmp_path).with_config({"user.name": "x"}).with_network_retry(policy)
    with pytest.raises(GitError, match="ls-remote"):
        run_network_read(["ls-remote", "http://127.0.0.1:9/o/r.git"], patient.authenticated("t"))
    assert waits == [0.1]


def test_a_read_refused_for_good_is_not_retried(repo: Path, tmp_path: Path) -> None:
    waits: list[float] = []
    policy = NetworkRetry(attempts=3, backoff=0.25, sleep=waits.append)
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    with pytest.raises(GitError, match="couldn't find remote ref"):
        run_network_read(["fetch", "origin", "refs/heads/no-such-branch"], clone, retry=policy)
    assert waits == []
