"""What the ask and review modes share: a pull request's head fetched for an agent to read,
checked out or kept as data (a fork's), and how the agent runs on it."""

from amelia.action.modes._pull_head._fetched import fetched_head, head_run_context
from amelia.action.modes._pull_head._fork_reviews import (
    FORK_REVIEW_NOTE,
    files_only,
    head_is_data,
    serves_a_data_head,
    unreviewable_fork,
)
from amelia.action.modes._pull_head._pull_head import PullHead

__all__ = [
    "FORK_REVIEW_NOTE",
    "PullHead",
    "fetched_head",
    "files_only",
    "head_is_data",
    "head_run_context",
    "serves_a_data_head",
    "unreviewable_fork",
]
