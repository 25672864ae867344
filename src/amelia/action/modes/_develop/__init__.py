"""What the fix and implement modes share: the develop → publish → review flow, the
project's toolchain before it, the repository's CI after every push, and amelia's part of
the pull request's description."""

from amelia.action.modes._develop._flow import (
    ROUND_STAGES,
    STAGE_CI,
    STAGE_SETUP,
    STAGE_TESTS,
    commit_and_push,
    describe,
    develop,
    fetch_base,
    issue_of_branch,
    post_review,
    set_up,
)
from amelia.action.modes._develop._pull_body import check_lines, merge_pull_body, pull_body
from amelia.action.modes._develop._pull_description import (
    ChangeReport,
    earlier_rounds,
    next_round,
    round_line,
)
from amelia.action.modes._develop._repository_ci import RepositoryCi
from amelia.action.modes._develop._toolchain import PreparedToolchain, prepare_toolchain

__all__ = [
    "ROUND_STAGES",
    "STAGE_CI",
    "STAGE_SETUP",
    "STAGE_TESTS",
    "ChangeReport",
    "PreparedToolchain",
    "RepositoryCi",
    "check_lines",
    "commit_and_push",
    "describe",
    "develop",
    "earlier_rounds",
    "fetch_base",
    "issue_of_branch",
    "merge_pull_body",
    "next_round",
    "post_review",
    "prepare_toolchain",
    "pull_body",
    "round_line",
    "set_up",
]
