"""The pydantic-ai driver for `openai:*`, `openrouter:*` and other API models."""
