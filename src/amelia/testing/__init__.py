"""Local servers speaking real wire protocols, for tests and `amelia demo`."""
