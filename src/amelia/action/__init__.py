"""The GitHub Action: read the runner's environment, route the event, run a mode."""

__all__: list[str] = []
