"""The Action's engine: from a GitHub runner's environment (or explicit arguments) to an exit
code. It routes the event, resolves the run's settings, builds the mode's context and
reports the outcome; what serves it alone lives in its private modules here."""

from amelia.action.engine._engine import ActionRequest, run_action

__all__ = ["ActionRequest", "run_action"]
