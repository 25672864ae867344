"""Paths and files inside a root filesystem, resolved the way a process chrooted into it would."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path, PurePosixPath

from scripts.image_rehearsal.errors import RehearsalError

_MAX_SYMLINK_HOPS = 40
DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def resolve_in_root(root: Path, container_path: str, *, follow_last: bool = True) -> Path:
    """The host path of `container_path`, with symlinks resolved against `root`, not `/`.

    Absolute link targets inside an image point into the image; resolving them on the host
    would read (or write) the host's files instead.
    """
    pending = list(PurePosixPath("/", container_path).parts[1:])
    resolved: list[str] = []
    hops = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if resolved:
                resolved.pop()
            continue
        candidate = root.joinpath(*resolved, part)
        is_last = not pending
        if candidate.is_symlink() and (follow_last or not is_last):
            hops += 1
            if hops > _MAX_SYMLINK_HOPS:
                raise RehearsalError(f"too many symlinks resolving {container_path} in the image")
            target = str(candidate.readlink())
            if target.startswith("/"):
                resolved = []
            pending = [p for p in PurePosixPath(target).parts if p != "/"] + pending
            continue
        resolved.append(part)
    return root.joinpath(*resolved)


def find_executable(root: Path, name: str, path_variable: str) -> str | None:
    """The container path `name` would be executed from, searching PATH like execvp."""
    candidates = [name] if "/" in name else [f"{d}/{name}" for d in path_variable.split(":") if d]
    for candidate in candidates:
        host_path = resolve_in_root(root, candidate)
        if host_path.is_file() and os.access(host_path, os.X_OK):
            return candidate
    return None


def interpreter_of(root: Path, container_path: str) -> str | None:
    """The `#!` interpreter of a script in the image, if it is one."""
    host_path = resolve_in_root(root, container_path)
    with host_path.open("rb") as handle:
        head = handle.read(256)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    return words[0] if words else None


def tree_size_bytes(root: Path, *, exclude: tuple[str, ...] = ()) -> int:
    """Apparent size of the tree, like the sum of an image's layer archives."""
    args = ["du", "-s", "-b", "-x"]
    args += [f"--exclude={root / relative}" for relative in exclude]
    result = subprocess.run([*args, str(root)], capture_output=True, text=True, check=True)
    return int(result.stdout.split()[0])


def copy_tree(source: Path, destination: Path) -> None:
    """An exact copy of a root filesystem (owners, modes, links, hard links, xattrs)."""
    destination.parent.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        ["cp", "-a", "--reflink=auto", str(source), str(destination)],
        capture_output=True,
        text=True,
    )
    if result.returncode != 0:
        raise RehearsalError(f"cannot copy {source} to {destination}: {result.stderr.strip()}")
