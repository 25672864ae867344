"""`/amelia plan` (or the trigger label): commit an implementation plan on the issue's branch.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.plan._mode import MODE, STAGES, commit_title, run

__all__ = ["MODE", "STAGES", "commit_title", "run"]
