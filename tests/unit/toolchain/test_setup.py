"""What a setup value runs: a command line, or a script read from the trusted commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.errors import ConfigError
from amelia.toolchain import extend_path, read_added_path, resolve_setup, run_shell
from amelia.toolchain.setup import BASH, is_script_path, without_own_virtualenv
from tests.git_helpers import init_repo


@pytest.mark.parametrize(
    ("value", "script"),
    [
        (".github/amelia/setup.sh", True),
        ("./setup.sh", True),
        ("setup.sh", True),
        ("scripts/bootstrap", True),
        ("npm ci", False),
        ("make", False),
        ("pip install -e .[test]", False),
        ("apt-get update && apt-get install -y jq", False),
    ],
)
def test_a_path_is_one_word_with_a_slash_or_ending_in_sh(value: str, script: bool) -> None:
    assert is_script_path(value) is script


def test_a_command_line_runs_under_bash(tmp_path: Path) -> None:
    command = resolve_setup("pip install -e .", repo=tmp_path, trusted_ref="HEAD")
    assert command.argv == (*BASH, "-c", "pip install -e .")
    assert command.description == "pip install -e ."


async def test_a_script_comes_from_the_trusted_commit_not_the_worktree(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"ci/setup.sh": "#!/bin/sh\necho trusted\n"})
    # An agent's edit on the branch never runs as root.
    (repo / "ci" / "setup.sh").write_text("#!/bin/sh\necho changed\n", encoding="utf-8")
    command = resolve_setup("ci/setup.sh", repo=repo, trusted_ref="HEAD")
    try:
        ran = await run_shell(
            command.argv, cwd=repo, env={"PATH": "/usr/bin:/bin"}, timeout_seconds=30
        )
    finally:
        command.cleanup()
    assert ran.tail == "trusted"
    assert command.script is not None and not command.script.exists()


def test_a_script_missing_from_the_trusted_commit_is_a_clear_error(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo", {"README.md": "x\n"})
    (repo / "setup.sh").write_text("echo only here\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"setup script setup\.sh is not in the default branch"):
        resolve_setup("setup.sh", repo=repo, trusted_ref="HEAD")
    with pytest.raises(ConfigError, match="inside the repository"):
        resolve_setup("../outside.sh", repo=repo, trusted_ref="HEAD")


def test_directories_the_setup_adds_go_in_front_of_path(tmp_path: Path) -> None:
    path_file = tmp_path / "path"
    assert read_added_path(path_file) == []
    path_file.write_text("/opt/a/bin\n\n/opt/b/bin\n", encoding="utf-8")
    added = read_added_path(path_file)
    extended = extend_path({"PATH": "/usr/bin:/opt/a/bin", "HOME": "/h"}, added)
    assert extended == {"PATH": "/opt/b/bin:/opt/a/bin:/usr/bin", "HOME": "/h"}
    assert extend_path({"PATH": "/usr/bin"}, []) == {"PATH": "/usr/bin"}


def test_amelias_own_virtualenv_is_not_the_projects_python() -> None:
    environ = {"PATH": "/opt/amelia/.venv/bin:/usr/bin", "VIRTUAL_ENV": "/opt/amelia/.venv"}
    cleaned = without_own_virtualenv(environ, prefix="/opt/amelia/.venv")
    assert cleaned == {"PATH": "/usr/bin", "VIRTUAL_ENV": ""}
    other = {"PATH": "/work/.venv/bin:/usr/bin", "VIRTUAL_ENV": "/work/.venv"}
    assert without_own_virtualenv(other, prefix="/opt/amelia/.venv") == other
    assert without_own_virtualenv(environ, prefix="") == environ
