"""Review a pull request: `pull_request` opened/synchronize/reopened/ready_for_review, or

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.review._mode import MODE, run, steering_note

__all__ = ["MODE", "run", "steering_note"]
