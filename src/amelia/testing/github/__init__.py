"""A local GitHub for tests: one state, served two ways.

- `GitHubState` (`state`): repositories, users, issues, comments, pulls, reviews, review
  threads and queued faults, with GitHub's validation;
- `InMemoryGitHub` (`memory`): the GitHub port over that state, in-process, answering
  and failing as the adapter over PyGithub does (mode tests: no HTTP, no thread);
- `FakeGitHubServer` (`server`): that state over HTTP on 127.0.0.1 (REST, GraphQL and
  git's smart HTTP protocol), for the real client, git and the real `amelia action`.

`server.memory("octo/app")` is the in-memory GitHub over the server's own state.
"""

from amelia.testing.github.actions import RunScript
from amelia.testing.github.faults import SECONDARY_RATE_LIMIT_MESSAGE, Fault
from amelia.testing.github.git_http import GitRequest
from amelia.testing.github.memory import InMemoryGitHub
from amelia.testing.github.records import ApiError, GraphQLError
from amelia.testing.github.rest import RecordedAnswer, RecordedRequest
from amelia.testing.github.server import FakeGitHubServer
from amelia.testing.github.state import MAX_DIFF_LINES, MAX_PULL_FILES, REACTIONS, GitHubState

__all__ = [
    "MAX_DIFF_LINES",
    "MAX_PULL_FILES",
    "REACTIONS",
    "SECONDARY_RATE_LIMIT_MESSAGE",
    "ApiError",
    "FakeGitHubServer",
    "Fault",
    "GitHubState",
    "GitRequest",
    "GraphQLError",
    "InMemoryGitHub",
    "RecordedAnswer",
    "RecordedRequest",
    "RunScript",
]
