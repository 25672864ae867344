"""Drivers run an agent's turn on a model: Claude Code (cli) or any pydantic-ai model (api)."""

__all__: list[str] = []
