"""`/amelia help` and unknown commands: reply with the list of commands.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.help._mode import MODE, run

__all__ = ["MODE", "run"]
