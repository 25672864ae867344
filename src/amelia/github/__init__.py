"""Everything that talks to GitHub: events, permissions, comments, git."""

__all__: list[str] = []
