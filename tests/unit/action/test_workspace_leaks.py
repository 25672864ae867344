"""A change holding a secret of the run is never pushed; it is saved without the secret."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from amelia.action.workspace import Workspace
from amelia.errors import SecretInChangeError
from tests.git_helpers import IDENTITY, git, init_repo

SECRET = "sk-ant-api03-" + "ModelKeyOfThisRun0123456789abcdefgh"


@pytest.fixture
def clone(tmp_path: Path) -> tuple[Path, Path]:
    origin = tmp_path / "origin.git"
    seed = init_repo(tmp_path / "seed", {"README.md": "# demo\n"})
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(origin))
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "amelia/issue-3")
    return work, origin


def test_a_change_with_a_secret_is_refused_and_saved_without_it(
    clone: tuple[Path, Path], tmp_path: Path
) -> None:
    work, origin = clone
    encoded = base64.b64encode(SECRET.encode()).decode()
    (work / "leak.py").write_text(f'STOLEN = "{encoded}"\n')
    (work / "fine.py").write_text("x = 1\n")
    git(work, "add", "--all")
    git(work, *IDENTITY, "commit", "-qm", "Implement")
    artifacts = tmp_path / "artifacts"
    workspace = Workspace(work, secrets=[SECRET], artifacts_dir=artifacts, on_runner=False)

    with pytest.raises(SecretInChangeError) as raised:
        workspace.push("amelia/issue-3")

    assert "`leak.py`" in raised.value.message and "fine.py" not in raised.value.message
    assert SECRET not in raised.value.message and encoded not in raised.value.message
    assert "amelia/issue-3" not in git(origin, "branch")
    saved = workspace.unpushed
    assert saved is not None and saved.files == ("fine.py", "leak.py")
    everything = saved.patch_path.read_bytes() + b"".join(
        path.read_bytes() for path in (saved.directory / "files").rglob("*") if path.is_file()
    )
    assert encoded.encode()[4:-4] not in everything and b"***" in everything
    assert b"x = 1" in everything


def test_a_token_shaped_string_is_pushed_and_flagged(clone: tuple[Path, Path]) -> None:
    work, origin = clone
    (work / "settings.py").write_text('EXAMPLE = "ghp_' + "x" * 36 + '"\n')
    git(work, "add", "--all")
    git(work, *IDENTITY, "commit", "-qm", "Implement")
    workspace = Workspace(work, secrets=[SECRET], on_runner=False)

    workspace.push("amelia/issue-3")

    assert "amelia/issue-3" in git(origin, "branch")
    assert [(leak.path, leak.kind) for leak in workspace.flagged] == [
        ("settings.py", "GitHub token")
    ]
    assert "`settings.py` (GitHub token)" in workspace.notes()[0]
