"""One file of a pinned npm package, packed once into a cache directory.

    DESCRIPTION = PinnedFile("@octokit/openapi", "23.0.2",
                             "package/generated/api.github.com.json", cache="github-openapi")
    DESCRIPTION.cached()   # where it is kept (it may not be there yet)
    DESCRIPTION.fetch()    # the same path, packed with `npm pack` when not there yet

The file is kept as `$XDG_CACHE_HOME/amelia/<cache>/<version>/<its name>` (default
`~/.cache/…`), written whole or not at all (two runs at once each write their own copy and
move it into place). Without npm, or when the registry cannot be reached, `fetch` raises
`RuntimeError` saying which; `main` prints the path, or that error on stderr with exit 1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["PinnedFile"]


@dataclass(frozen=True)
class PinnedFile:
    """`member` of `package@version`, kept under the cache directory `cache`."""

    package: str
    version: str
    member: str
    cache: str

    def cached(self) -> Path:
        """Where the file is kept (it may not be there yet)."""
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "amelia" / self.cache / self.version / PurePosixPath(self.member).name

    def fetch(self) -> Path:
        """The path of the file, packed from npm when it is not in the cache yet."""
        target = self.cached()
        if target.is_file():
            return target
        npm = shutil.which("npm")
        if npm is None:
            raise RuntimeError("npm is not installed: install Node.js and npm (Debian: nodejs npm)")
        spec = f"{self.package}@{self.version}"
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as scratch:
            packed = subprocess.run(
                [npm, "pack", "--silent", spec, "--pack-destination", scratch],
                capture_output=True,
                text=True,
                check=False,
            )
            if packed.returncode != 0:
                detail = (packed.stderr or packed.stdout).strip().splitlines()
                raise RuntimeError(f"npm pack {spec} failed: {' '.join(detail[-3:])}")
            (archive,) = Path(scratch).glob("*.tgz")
            with tarfile.open(archive) as tar:
                try:
                    extracted = tar.extractfile(self.member)
                except KeyError:
                    extracted = None
                if extracted is None:
                    raise RuntimeError(f"{spec} holds no {self.member}")
                partial = Path(scratch) / target.name
                partial.write_bytes(extracted.read())
            partial.replace(target)  # whole or not at all, also for two runs at once
        return target

    def main(self, program: str) -> int:
        """Print the file's path (fetching it first if need be); exit status 0, or 1 with
        the reason on stderr."""
        try:
            print(self.fetch())
        except (OSError, RuntimeError, tarfile.TarError) as error:
            print(f"{program}: {error}", file=sys.stderr)
            return 1
        return 0
