"""How the Action treats pull requests from forks.

GitHub runs `pull_request` workflows of a fork's pull request without the repository's
secrets and with a read-only token: with no model key there is nothing to review with, and
amelia says so instead of failing. `pull_request_target` runs have the secrets and a write
token, and their checkout is the base: there (only with `review_forks: true`) the head is
data, never code (`amelia.action.modes._pull_head._pull_head.head_as_data`), and the reviewer gets
file-reading tools only, confined to the head's directory (`files_only`).

`head_is_data` decides it for every mode that reads a pull's head, whatever the event: a
head from another repository than the base (a fork), on `pull_request_target` or on a
maintainer's `/amelia review` or `/amelia ask` (`issue_comment`, which has the secrets
too), is only ever data. Such a run starts none of the MCP servers of `.github/amelia.yml`
(`serves_a_data_head`): no agent of it may use one, and a server holding secrets has no
business running beside a stranger's code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from amelia.github.events import (
    Command,
    Event,
    IssueCommentEvent,
    PullRequestEvent,
    PullRequestReviewCommentEvent,
)

if TYPE_CHECKING:
    from amelia.config import Settings
    from amelia.core.types import AgentRole, ToolProfileName
    from amelia.drivers.base import DriverInterface
    from amelia.github.models import PullInfo
    from amelia.github.port import GitHubReads
    from amelia.pipeline import MakeDriver

__all__ = [
    "FORKS_EXAMPLE",
    "FORK_REVIEW_NOTE",
    "files_only",
    "head_is_data",
    "serves_a_data_head",
    "unreviewable_fork",
]

FORKS_EXAMPLE = "docs/examples/amelia-review-forks.yml"

FORK_REVIEW_NOTE = (
    "_Fork review: the head was read as data only, by a reviewer with read-only file "
    "tools and no shell; none of its code was built or run. amelia never approves a pull "
    "request from a fork: a maintainer's review decides._"
)
"""Added to the body of every review of a head kept as data."""


def head_is_data(pull: PullInfo, event: Event) -> bool:
    """True when the pull's head must be read as data only, never checked out into the
    checkout or given to an agent with a shell: the head lives in another repository than
    the base (a fork, whatever the event that asks), or the run is `pull_request_target`
    (its checkout is the base, and it holds the secrets)."""
    if pull.from_fork:
        return True
    return isinstance(event, PullRequestEvent) and event.is_target


async def serves_a_data_head(github: GitHubReads, command: Command, event: Event) -> bool:
    """True when `command` works on a pull request whose head `head_is_data`: a review, an
    answer, a fix or an implementation asked on a fork's pull request, or any run on
    `pull_request_target`. The pull is read from GitHub, as the mode reads it."""
    number = command.number
    if number is None or command.kind not in {"review", "ask", "fix", "implement"}:
        return False
    if isinstance(event, PullRequestEvent) and event.is_target:
        return True
    if isinstance(event, PullRequestEvent | PullRequestReviewCommentEvent):
        on_pull = event.pull_request.number == number
    elif isinstance(event, IssueCommentEvent) and event.issue.number == number:
        on_pull = event.issue.is_pull_request
    else:
        on_pull = False
    if not on_pull:
        on_pull = (await github.get_issue(number)).is_pull_request
    return on_pull and head_is_data(await github.get_pull(number), event)


def unreviewable_fork(settings: Settings, event: Event, command: Command) -> str | None:
    """Why a `pull_request` review of a fork's pull request cannot run (no model key: GitHub
    gives such runs no secrets), with the way to review forks; None when it can run."""
    if command.kind != "review" or not isinstance(event, PullRequestEvent):
        return None
    if event.is_target or not event.from_fork:
        return None
    from amelia.drivers.credentials import missing_credentials
    from amelia.drivers.runtime import DriverEnvironment

    inputs = settings.inputs
    environment = DriverEnvironment(
        inherited=settings.environ, credentials=settings.model_credentials()
    )
    problem = missing_credentials(inputs.driver, inputs.model, environment)
    if problem is None:
        return None
    return (
        f"pull request #{event.pull_request.number} comes from a fork, and GitHub gives "
        f"pull_request runs from forks no secrets, so there is no model key ({problem}). "
        "To review pull requests from forks, run amelia on pull_request_target with "
        f"review_forks: true (see {FORKS_EXAMPLE})"
    )


def files_only(make_driver: MakeDriver) -> MakeDriver:
    """Drivers made by `make_driver`, every one with the `read_files` profile: no shell,
    no network tool, file tools confined to the working directory."""

    def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
        return make_driver(role, "read_files")

    return make
