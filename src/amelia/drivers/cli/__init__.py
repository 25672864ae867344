"""Drivers that run a coding-agent CLI (Claude Code)."""
