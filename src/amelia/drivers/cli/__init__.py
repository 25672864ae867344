"""Drivers that run a coding-agent CLI (Claude Code)."""

__all__: list[str] = []
