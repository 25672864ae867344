"""`/amelia fix [notes]` on a pull request (or in one of its review threads): address the

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.fix._mode import MODE, STAGES, Found, fix, prepare

__all__ = ["MODE", "STAGES", "Found", "fix", "prepare"]
