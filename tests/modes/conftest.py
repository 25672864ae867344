"""Every request the in-memory GitHub of an in-process run stands for (the request the
adapter would have made: method, path, query and the body of a write) checked against
GitHub's REST API description, as the end-to-end tests check the local server's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from amelia.testing.github import InMemoryGitHub
from tests.github_openapi import description_path, required_description


@pytest.fixture(autouse=True)
def _requests_as_github_describes_them(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """After each test, every request its in-memory GitHubs recorded must be valid against
    GitHub's REST API description. Nothing is checked where the description was never
    fetched and `AMELIA_GITHUB_OPENAPI` is not set (.ci/run sets it)."""
    made: list[InMemoryGitHub] = []
    init = InMemoryGitHub.__init__

    def recording_init(github: InMemoryGitHub, *args: Any, **kwargs: Any) -> None:
        init(github, *args, **kwargs)
        made.append(github)

    monkeypatch.setattr(InMemoryGitHub, "__init__", recording_init)
    yield
    if description_path() is None or not made:
        return
    description = required_description()
    problems = [
        problem for github in made for problem in description.check(github.requests).problems
    ]
    assert not problems, "not as GitHub's API description has it:\n" + "\n".join(
        dict.fromkeys(problems)
    )
