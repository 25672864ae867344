"""GitHub's REST API description (`@octokit/openapi` from npm, a pinned version), kept in
a cache directory, for the tests that check amelia's requests against it.

    python -m scripts.github_openapi        # prints the path of api.github.com.json

It runs `npm pack` once per version into `$XDG_CACHE_HOME/amelia/github-openapi/<version>`
(default `~/.cache/…`) and keeps `generated/api.github.com.json` from the package; later
calls only print the path. Without npm, or when the registry cannot be reached, it says so
on stderr and exits 1.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from scripts.npm_files import cached_file, fetch_file

__all__ = ["PACKAGE", "VERSION", "cached_description", "fetch_description"]

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
_MEMBER = "package/generated/api.github.com.json"
_CACHE = "github-openapi"


def cached_description() -> Path:
    """Where the description of the pinned version is kept (it may not be there yet)."""
    return cached_file(PACKAGE, VERSION, _MEMBER, _CACHE)


def fetch_description() -> Path:
    """The path of the description, packed from npm when it is not in the cache yet."""
    return fetch_file(PACKAGE, VERSION, _MEMBER, _CACHE)


def main() -> int:
    try:
        print(fetch_description())
    except (OSError, RuntimeError, tarfile.TarError) as error:
        print(f"github_openapi: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
