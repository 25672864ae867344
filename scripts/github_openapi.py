"""GitHub's REST API description (`@octokit/openapi` from npm, a pinned version), kept in
a cache directory, for the tests that check amelia's requests against it.

    python -m scripts.github_openapi        # prints the path of api.github.com.json

It runs `npm pack` once per version into `$XDG_CACHE_HOME/amelia/github-openapi/<version>`
(default `~/.cache/…`) and keeps `generated/api.github.com.json` from the package; later
calls only print the path. Without npm, or when the registry cannot be reached, it says so
on stderr and exits 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

__all__ = ["PACKAGE", "VERSION", "cached_description", "fetch_description"]

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
_MEMBER = "package/generated/api.github.com.json"


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "amelia" / "github-openapi" / VERSION


def cached_description() -> Path:
    """Where the description of the pinned version is kept (it may not be there yet)."""
    return _cache_root() / "api.github.com.json"


def fetch_description() -> Path:
    """The path of the description, packed from npm when it is not in the cache yet."""
    target = cached_description()
    if target.is_file():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed: install Node.js and npm (Debian: nodejs npm)")
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
        packed = subprocess.run(
            [npm, "pack", "--silent", f"{PACKAGE}@{VERSION}", "--pack-destination", scratch],
            capture_output=True,
            text=True,
            check=False,
        )
        if packed.returncode != 0:
            detail = (packed.stderr or packed.stdout).strip().splitlines()
            raise RuntimeError(f"npm pack {PACKAGE}@{VERSION} failed: {' '.join(detail[-3:])}")
        (archive,) = Path(scratch).glob("*.tgz")
        with tarfile.open(archive) as tar:
            member = tar.extractfile(_MEMBER)
            if member is None:
                raise RuntimeError(f"{PACKAGE}@{VERSION} holds no {_MEMBER}")
            partial = Path(scratch) / "api.github.com.json"
            partial.write_bytes(member.read())
        partial.replace(target)  # whole or not at all, also for two runs at once
    return target


def main() -> int:
    try:
        print(fetch_description())
    except (OSError, RuntimeError, tarfile.TarError) as error:
        print(f"github_openapi: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
