"""The local GitHub server, where it has always been imported from.

It lives in `amelia.testing.github` now (state, REST routes, GraphQL, git's HTTP
protocol, the server, and the in-memory GitHub over the same state); these names stay
importable from here.

    with FakeGitHubServer() as server:
        server.add_repo("octo/app", bare_path=origin)
        server.add_issue("octo/app", title="Crash", body="…", labels=["amelia"])
        client = GitHubClient(token="t", repo="octo/app", base_url=server.url)
"""

from amelia.testing.github.faults import SECONDARY_RATE_LIMIT_MESSAGE, Fault
from amelia.testing.github.git_http import GitRequest
from amelia.testing.github.records import Json
from amelia.testing.github.rest import Handler, RecordedRequest
from amelia.testing.github.server import FakeGitHubServer
from amelia.testing.github.state import MAX_DIFF_LINES, MAX_PULL_FILES, REACTIONS

__all__ = [
    "MAX_DIFF_LINES",
    "MAX_PULL_FILES",
    "REACTIONS",
    "SECONDARY_RATE_LIMIT_MESSAGE",
    "FakeGitHubServer",
    "Fault",
    "GitRequest",
    "Handler",
    "Json",
    "RecordedRequest",
]
