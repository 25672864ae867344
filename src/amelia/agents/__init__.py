"""Agents: architect, developer, reviewer. They speak only AgenticMessage and StreamEvent."""

__all__: list[str] = []
