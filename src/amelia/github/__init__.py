"""Everything that talks to GitHub: events, permissions, comments, git."""
