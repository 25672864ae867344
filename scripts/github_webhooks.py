"""GitHub's own webhook payloads (`@octokit/webhooks-examples` from npm, a pinned version):
the examples GitHub's documentation shows for every event and action, for the tests that
feed them to amelia's event parser and router.

    python -m scripts.github_webhooks       # prints the path of index.json

Kept as `$XDG_CACHE_HOME/amelia/github-webhooks/<version>/index.json` (default
`~/.cache/…`), packed once with `npm pack`; the file is a list of `{"name": <event>,
"examples": [<payload>, …]}`. Without npm, or when the registry cannot be reached, it says
so on stderr and exits 1.
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path

from scripts.npm_files import cached_file, fetch_file

__all__ = ["PACKAGE", "VERSION", "cached_examples", "fetch_examples"]

PACKAGE = "@octokit/webhooks-examples"
VERSION = "7.6.1"
_MEMBER = "package/api.github.com/index.json"
_CACHE = "github-webhooks"


def cached_examples() -> Path:
    """Where the examples of the pinned version are kept (they may not be there yet)."""
    return cached_file(PACKAGE, VERSION, _MEMBER, _CACHE)


def fetch_examples() -> Path:
    """The path of the examples, packed from npm when they are not in the cache yet."""
    return fetch_file(PACKAGE, VERSION, _MEMBER, _CACHE)


def main() -> int:
    try:
        print(fetch_examples())
    except (OSError, RuntimeError, tarfile.TarError) as error:
        print(f"github_webhooks: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
