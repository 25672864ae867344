"""`/amelia plan` (or the trigger label): commit an implementation plan on the issue's branch.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.plan._mode import (
    MODE,
    STAGE_ARCHITECT,
    STAGE_BRANCH,
    STAGE_PUBLISH,
    STAGES,
    co_author,
    commit_subject,
    commit_title,
    run,
)

__all__ = [
    "MODE",
    "STAGES",
    "STAGE_ARCHITECT",
    "STAGE_BRANCH",
    "STAGE_PUBLISH",
    "co_author",
    "commit_subject",
    "commit_title",
    "run",
]
