"""`/amelia ask <question>`: a read-only agent answers a question in one comment.

The mode is in `_mode`; its own helpers are the other private modules here."""

from amelia.action.modes.ask._mode import MODE, answer_body, contained_diff, run, thread_context

__all__ = ["MODE", "answer_body", "contained_diff", "run", "thread_context"]
