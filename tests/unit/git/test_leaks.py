"""Credentials in commits about to be pushed: a secret of the run's refuses the push, a
string shaped like a credential is flagged; findings name files, never values."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from amelia.git import Leak, mask_secrets, scan_unpushed, secret_spellings
from tests.git_helpers import IDENTITY, git, init_repo

SECRET = "ghs_" + "RunTokenOfThisJob0123456789abcdefghij"
MODEL_KEY = "sk-ant-api03-" + "ModelKeyOfThisRun0123456789abcdefgh"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    origin = tmp_path / "origin.git"
    seed = init_repo(tmp_path / "seed", {"README.md": f"# demo\n{MODEL_KEY}\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(clone))
    git(clone, "checkout", "-q", "-b", "amelia/issue-1")
    return clone


def _commit(repo: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_bytes(data)
    git(repo, "add", "--all")
    git(repo, *IDENTITY, "commit", "-qm", "change")


def test_secret_values_in_any_spelling_are_found_in_every_unpushed_commit(repo: Path) -> None:
    basic = base64.b64encode(f"x-access-token:{SECRET}".encode()).decode()
    _commit(repo, {"raw.txt": f"token = {SECRET}\n".encode()})
    _commit(repo, {"header.py": f'HEADER = "AUTHORIZATION: basic {basic}"\n'.encode()})
    _commit(repo, {"hex.txt": SECRET.encode().hex().encode(), "data.bin": b"\0\1" + basic.encode()})
    # Removed again later: still in the history that would be pushed.
    (repo / "raw.txt").unlink()
    _commit(repo, {"clean.py": b"ok = 1\n"})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET, "short"])

    assert sorted(leak.path for leak in report.secrets) == [
        "data.bin",
        "header.py",
        "hex.txt",
        "raw.txt",
    ]
    assert all(SECRET not in leak.kind for leak in report.secrets)


def test_token_shaped_strings_are_flagged_and_pushed_history_is_not_searched(
    repo: Path,
) -> None:
    # README.md on main holds MODEL_KEY already: it is pushed, not this run's change.
    _commit(
        repo,
        {"config.py": b'KEY = "ghp_' + b"A" * 36 + b'"\n', "keys/k.txt": b"AKIAABCDEFGHIJKLMNOP"},
    )

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET])

    assert report.secrets == ()
    assert sorted(report.tokens, key=lambda leak: leak.path) == [
        Leak("config.py", "GitHub token"),
        Leak("keys/k.txt", "AWS access key id"),
    ]


def test_masking_removes_every_spelling() -> None:
    basic = base64.b64encode(f"x-access-token:{SECRET}".encode())
    data = b"a " + SECRET.encode() + b" b " + basic + b" c " + SECRET.encode().hex().encode()

    masked = mask_secrets(data, [SECRET])

    assert not any(spelling in masked for spelling in secret_spellings(SECRET))
    assert masked.startswith(b"a *** b ")


def test_a_commit_hidden_behind_a_remote_tracking_ref_or_a_replacement_is_still_searched(
    repo: Path,
) -> None:
    """What an agent can write in `.git/`: a remote-tracking ref naming its commit (so it
    looks pushed already) and a `refs/replace/` entry showing other contents for the blob
    (which a push ignores). amelia's search, given the commits it knew were on the
    server, still finds the secret."""
    published = [git(repo, "rev-parse", "HEAD").strip()]
    _commit(repo, {"leak.txt": f"token = {SECRET}\n".encode()})
    secret_blob = git(repo, "rev-parse", "HEAD:leak.txt").strip()
    (repo / "clean.txt").write_text("token = nothing\n")
    clean_blob = git(repo, "hash-object", "-w", "clean.txt").strip()
    (repo / "clean.txt").unlink()
    git(repo, "replace", secret_blob, clean_blob)
    git(repo, "update-ref", "refs/remotes/origin/looks-pushed", "HEAD")
    _commit(repo, {"clean.py": b"ok = 1\n"})

    report = scan_unpushed(repo, "amelia/issue-1", secrets=[SECRET], published=published)

    assert [leak.path for leak in report.secrets] == ["leak.txt"]
