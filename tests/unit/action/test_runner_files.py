"""The runner's file commands are put back as amelia left them, never written through a
link an agent put in their place."""

from __future__ import annotations

from pathlib import Path

from amelia.action.checkout._runner_files import RunnerFiles


def test_changed_replaced_and_removed_files_are_put_back_and_links_are_not_followed(
    tmp_path: Path,
) -> None:
    env_file, path_file, output = tmp_path / "set_env", tmp_path / "add_path", tmp_path / "out"
    env_file.write_bytes(b"EARLIER=1\n")
    path_file.write_bytes(b"/opt/bin\n")
    output.write_bytes(b"")
    files = RunnerFiles.of(
        {"GITHUB_ENV": str(env_file), "GITHUB_PATH": str(path_file), "GITHUB_OUTPUT": str(output)}
    )
    before = files.take()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.write_bytes(b"not the runner's\n")

    with env_file.open("ab") as handle:
        handle.write(b"NODE_OPTIONS=--require /tmp/x.js\n")
    path_file.unlink()
    path_file.symlink_to(elsewhere)
    output.unlink()

    assert sorted(before.restore()) == sorted([env_file, path_file, output])
    assert env_file.read_bytes() == b"EARLIER=1\n"
    assert not path_file.is_symlink() and path_file.read_bytes() == b"/opt/bin\n"
    assert output.read_bytes() == b""
    assert elsewhere.read_bytes() == b"not the runner's\n"
    assert before.restore() == []


def test_a_file_that_did_not_exist_is_removed_again(tmp_path: Path) -> None:
    state = tmp_path / "state"
    files = RunnerFiles.of({"GITHUB_STATE": str(state), "GITHUB_ENV": ""}).take()
    state.write_bytes(b"agent=1\n")

    assert files.restore() == [state]
    assert not state.exists()
