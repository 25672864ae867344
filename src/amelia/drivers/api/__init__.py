"""The pydantic-ai driver for `openai:*`, `openrouter:*` and other API models."""

from amelia.drivers.api.driver import ApiDriver as ApiDriver

__all__ = ["ApiDriver"]
