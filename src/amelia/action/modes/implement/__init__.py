"""`/amelia implement`: carry out the committed plan of an issue and open a draft pull request.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.implement._mode import (
    MODE,
    STAGE_BRANCH,
    STAGE_DEVELOPER,
    STAGE_PUBLISH,
    STAGE_REVIEWER,
    STAGE_SETUP,
    STAGE_TESTS,
    STAGES,
    Planned,
    check_lines,
    commit_and_push,
    commit_title,
    fetch_base,
    fetch_default,
    implement,
    issue_of_branch,
    merge_pull_body,
    no_plan_reply,
    prepare,
    pull_body,
)

__all__ = [
    "MODE",
    "STAGES",
    "STAGE_BRANCH",
    "STAGE_DEVELOPER",
    "STAGE_PUBLISH",
    "STAGE_REVIEWER",
    "STAGE_SETUP",
    "STAGE_TESTS",
    "Planned",
    "check_lines",
    "commit_and_push",
    "commit_title",
    "fetch_base",
    "fetch_default",
    "implement",
    "issue_of_branch",
    "merge_pull_body",
    "no_plan_reply",
    "prepare",
    "pull_body",
]
