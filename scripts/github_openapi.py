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
from pathlib import Path

from scripts.npm_files import PinnedFile

__all__ = ["DESCRIPTION", "PACKAGE", "VERSION", "cached_description", "fetch_description"]

PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
DESCRIPTION = PinnedFile(
    PACKAGE, VERSION, "package/generated/api.github.com.json", cache="github-openapi"
)


def cached_description() -> Path:
    """Where the description of the pinned version is kept (it may not be there yet)."""
    return DESCRIPTION.cached()


def fetch_description() -> Path:
    """The path of the description, packed from npm when it is not in the cache yet."""
    return DESCRIPTION.fetch()


if __name__ == "__main__":
    sys.exit(DESCRIPTION.main("github_openapi"))
