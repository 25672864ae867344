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

from scripts.npm_files import PinnedFile

__all__ = ["EXAMPLES", "PACKAGE", "VERSION"]

PACKAGE = "@octokit/webhooks-examples"
VERSION = "7.6.1"
EXAMPLES = PinnedFile(
    PACKAGE, VERSION, "package/api.github.com/index.json", cache="github-webhooks"
)

if __name__ == "__main__":
    sys.exit(EXAMPLES.main("github_webhooks"))
