"""`/amelia implement`: carry out the committed plan of an issue and open a draft pull request.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.implement._mode import (
    MODE,
    STAGES,
    Planned,
    commit_title,
    implement,
    no_plan_reply,
    prepare,
)

__all__ = ["MODE", "STAGES", "Planned", "commit_title", "implement", "no_plan_reply", "prepare"]
