"""Every request amelia makes to the local GitHub in a run of the real entry point checked
against GitHub's API description (the harness itself comes from `amelia.testing.action`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from amelia.testing.github import FakeGitHubServer
from tests.github_openapi import CI_PATHS, description_path, required_description


@pytest.fixture(autouse=True)
def _requests_as_github_describes_them(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """After each test, every request the local GitHub servers of the test received (and
    each status they answered, with the bodies of the CI endpoints) must be valid against
    GitHub's REST API description. Nothing is checked where the description was never
    fetched and `AMELIA_GITHUB_OPENAPI` is not set (.ci/run sets it)."""
    servers: list[FakeGitHubServer] = []
    start = FakeGitHubServer.start

    def recording_start(server: FakeGitHubServer) -> FakeGitHubServer:
        servers.append(server)
        return start(server)

    monkeypatch.setattr(FakeGitHubServer, "start", recording_start)
    yield
    if description_path() is None or not servers:
        return
    description = required_description()
    problems = [
        problem
        for server in servers
        for problem in description.check(
            list(server.requests), list(server.answers), bodies=CI_PATHS
        ).problems
    ]
    assert not problems, "not as GitHub's API description has it:\n" + "\n".join(
        dict.fromkeys(problems)
    )
