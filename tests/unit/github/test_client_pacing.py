"""How the GitHub client paces its requests (PyGithub's own pauses, read from its config)."""

from __future__ import annotations

from typing import Any

from amelia.github.client import GitHubClient


def _pauses(client: GitHubClient) -> dict[str, Any]:
    kwargs = client._calls._gh.requester.kwargs
    return {name: kwargs[name] for name in ("seconds_between_requests", "seconds_between_writes")}


def test_throttled_client_pauses_between_writes_only() -> None:
    client = GitHubClient(token="t", repo="octo/app", base_url="http://127.0.0.1:9")

    assert _pauses(client) == {"seconds_between_requests": None, "seconds_between_writes": 1.0}


def test_unthrottled_client_never_pauses() -> None:
    client = GitHubClient(token="t", repo="octo/app", base_url="http://127.0.0.1:9", throttle=False)

    assert _pauses(client) == {"seconds_between_requests": None, "seconds_between_writes": None}
