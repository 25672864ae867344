"""The API driver's file tools run in amelia's own process while the agent's shell can
change the worktree: a path that turns into a symlink after its check, a hard link to a
file elsewhere, a FIFO or a link into `/proc/self` never lets a tool read or write
outside the directory (or hang)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from amelia.drivers.api.files import ConfinedFiles
from amelia.errors import PathRefused


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    (inside / "src").mkdir(parents=True)
    (inside / "src" / "notes.txt").write_text("inside notes\n")
    outside.mkdir()
    (outside / "notes.txt").write_text("the runner's secret\n")
    return inside, outside


def _swap(directory: Path, to: Path) -> None:
    for child in directory.iterdir():
        child.unlink()
    directory.rmdir()
    directory.symlink_to(to)


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, directory: Path, to: Path) -> None:
    """Once the path has been checked, `directory` becomes a symlink to `to`, as an
    agent's background process racing the tool would make it."""
    checked = ConfinedFiles.resolve

    def resolve_then_swap(self: ConfinedFiles, file_path: str) -> Path:
        result = checked(self, file_path)
        _swap(directory, to)
        return result

    monkeypatch.setattr(ConfinedFiles, "resolve", resolve_then_swap)


def _swap_at_first_open(monkeypatch: pytest.MonkeyPatch, directory: Path, to: Path) -> None:
    """`directory` becomes a symlink to `to` just before the first file is opened, after
    every check a write makes."""
    real_open = os.open
    swapped = False

    def swap_then_open(path: object, flags: int, *args: object, **kwargs: object) -> int:
        nonlocal swapped
        if not swapped:
            swapped = True
            _swap(directory, to)
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", swap_then_open)


def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed_by_a_read(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, outside = tree
    _swap_after_check(monkeypatch, inside / "src", outside)

    with pytest.raises(PathRefused, match="changed while it was being opened"):
        ConfinedFiles([inside]).read("src/notes.txt")


def test_a_directory_swapped_for_a_symlink_after_the_check_is_not_followed_by_a_write(
    tree: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    inside, outside = tree
    _swap_at_first_open(monkeypatch, inside / "src", outside)

    with pytest.raises(PathRefused):
        ConfinedFiles([inside]).write("src/notes.txt", "NODE_OPTIONS=--require /tmp/x.js\n")
    assert (outside / "notes.txt").read_text() == "the runner's secret\n"


def test_a_write_to_a_hard_link_leaves_the_other_name_alone(tree: tuple[Path, Path]) -> None:
    inside, outside = tree
    os.link(outside / "notes.txt", inside / "linked.txt")

    ConfinedFiles([inside]).write("linked.txt", "agent's text\n")

    assert (inside / "linked.txt").read_text() == "agent's text\n"
    assert (outside / "notes.txt").read_text() == "the runner's secret\n"


@pytest.mark.parametrize(
    "make",
    [
        lambda path: os.mkfifo(path),
        lambda path: path.symlink_to("/proc/self/environ"),
        lambda path: path.symlink_to("/proc/self/mem"),
        lambda path: path.symlink_to("/proc/1/environ"),
    ],
    ids=["fifo", "proc-self-environ", "proc-self-mem", "proc-1-environ"],
)
def test_no_fifo_and_no_link_into_proc_is_read(
    tree: tuple[Path, Path], make: Callable[[Path], None]
) -> None:
    inside, _ = tree
    make(inside / "bait")
    files = ConfinedFiles([inside])

    with pytest.raises(PathRefused):
        files.read("bait")
    with pytest.raises(PathRefused):
        files.write("bait", "x")
