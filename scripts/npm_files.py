"""One file of a pinned npm package, packed once into a cache directory.

    path = cached_file("@octokit/openapi", "23.0.2", "package/generated/api.github.com.json",
                       "github-openapi")
    path = fetch_file(...)        # the same path, packed with `npm pack` when not there yet

The file is kept as `$XDG_CACHE_HOME/amelia/<cache>/<version>/<its name>` (default
`~/.cache/…`), written whole or not at all (two runs at once each write their own copy and
move it into place). Without npm, or when the registry cannot be reached, `fetch_file`
raises `RuntimeError` saying which.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path, PurePosixPath

__all__ = ["cached_file", "fetch_file"]


def cached_file(package: str, version: str, member: str, cache: str) -> Path:
    """Where `member` of `package@version` is kept (it may not be there yet)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amelia" / cache / version / PurePosixPath(member).name


def fetch_file(package: str, version: str, member: str, cache: str) -> Path:
    """The path of `member` of `package@version`, packed from npm when not in the cache."""
    target = cached_file(package, version, member, cache)
    if target.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed: install Node.js and npm (Debian: nodejs npm)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        packed = subprocess.run(
            [npm, "pack", "--silent", f"{package}@{version}", "--pack-destination", scratch],
            capture_output=True,
            text=True,
            check=False,
        )
        if packed.returncode != 0:
            detail = (packed.stderr or packed.stdout).strip().splitlines()
            raise RuntimeError(f"npm pack {package}@{version} failed: {' '.join(detail[-3:])}")
        (archive,) = Path(scratch).glob("*.tgz")
        with tarfile.open(archive) as tar:
            try:
                extracted = tar.extractfile(member)
            except KeyError:
                extracted = None
            if extracted is None:
                raise RuntimeError(f"{package}@{version} holds no {member}")
            partial = Path(scratch) / target.name
            partial.write_bytes(extracted.read())
        partial.replace(target)  # whole or not at all, also for two runs at once
    return target
