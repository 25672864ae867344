"""The one error type the rehearsal raises for anything that would break `docker build`."""

from __future__ import annotations


class RehearsalError(Exception):
    """The image cannot be built (or rehearsed faithfully); the message names the step."""
