"""CLI commands, grouped by module; each module offers `register(app)`."""

__all__: list[str] = []
