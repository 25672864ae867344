"""GitHub's own webhook payloads (`@octokit/webhooks-examples`, fetched by
`scripts.github_webhooks`), by event name.

Where they are: `AMELIA_GITHUB_WEBHOOKS` names the file (then it must be there: `.ci/run`
sets it, so missing examples fail the run); without it, the cached copy of the pinned
version, if `python -m scripts.github_webhooks` has fetched it.
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

import pytest
from scripts.github_webhooks import VERSION, cached_examples

__all__ = ["ENV", "examples_path", "required_examples"]

ENV = "AMELIA_GITHUB_WEBHOOKS"

Examples = dict[str, list[dict[str, Any]]]


def examples_path() -> Path | None:
    """The examples' file: the one `AMELIA_GITHUB_WEBHOOKS` names (even when it is
    missing), else the cached copy if there is one."""
    named = os.environ.get(ENV)
    if named:
        return Path(named)
    cached = cached_examples()
    return cached if cached.is_file() else None


def required_examples() -> Examples:
    """Each event's example payloads, or the test fails (`AMELIA_GITHUB_WEBHOOKS` set, file
    missing) or skips (not set, not fetched) saying how to get them."""
    path = examples_path()
    if path is None:
        pytest.skip(
            f"GitHub's webhook examples (@octokit/webhooks-examples {VERSION}) are not here: "
            f"fetch them with `uv run python -m scripts.github_webhooks` (.ci/run does, and "
            f"sets {ENV})"
        )
    if not path.is_file():
        pytest.fail(f"{ENV}={path} names no file: GitHub's webhook examples are missing")
    return _load(str(path))


@functools.cache
def _load(path: str) -> Examples:
    events = json.loads(Path(path).read_text(encoding="utf-8"))
    return {event["name"]: event["examples"] for event in events}
