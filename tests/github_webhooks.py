"""GitHub's own webhook payloads (`@octokit/webhooks-examples`, fetched by
`scripts.github_webhooks`), by event name.

Where they are: `AMELIA_GITHUB_WEBHOOKS` names the file (then it must be there: `.ci/run`
sets it, so missing examples fail the run); without it, the cached copy of the pinned
version, if `python -m scripts.github_webhooks` has fetched it.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from scripts.github_webhooks import EXAMPLES

from tests.pinned_files import required_path

__all__ = ["ENV", "Examples", "required_examples"]

ENV = "AMELIA_GITHUB_WEBHOOKS"

Examples = dict[str, list[dict[str, Any]]]
"""Each event's example payloads, by the event's name."""


def required_examples() -> Examples:
    """The examples, or the test fails (`AMELIA_GITHUB_WEBHOOKS` set, file missing) or
    skips (not set, not fetched) saying how to get them."""
    path = required_path(
        ENV, EXAMPLES, what="GitHub's webhook examples", script="scripts.github_webhooks"
    )
    return _load(str(path))


@functools.cache
def _load(path: str) -> Examples:
    events = json.loads(Path(path).read_text(encoding="utf-8"))
    return {event["name"]: event["examples"] for event in events}
