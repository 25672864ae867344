"""The floor every layer stands on: shared types and the run's immutable state."""

__all__: list[str] = []
