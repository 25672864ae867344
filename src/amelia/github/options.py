"""What a GitHub client is configured with: the API's review events, retries, timeouts.

Plain pydantic, no PyGithub, so settings can be validated without loading the client.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["DEFAULT_API_URL", "DEFAULT_TIMEOUT", "RetryPolicy", "ReviewEvent"]

ReviewEvent = Literal["APPROVE", "REQUEST_CHANGES", "COMMENT"]
"""The events GitHub accepts for a pull request review."""

DEFAULT_API_URL = "https://api.github.com"
DEFAULT_TIMEOUT = 15
"""Seconds one GitHub request may take."""


class RetryPolicy(BaseModel):
    """How hard to retry: attempts per call and the total seconds one call may wait."""

    model_config = ConfigDict(frozen=True)

    max_attempts: int = Field(default=5, ge=1)
    max_total_wait: float = Field(default=60.0, ge=0)
    backoff_base: float = Field(default=1.0, ge=0)
    backoff_max: float = Field(default=20.0, ge=0)
