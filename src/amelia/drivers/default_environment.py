"""The environment of a driver made without one: this process's, as amelia's one reader of
the process environment builds it. The drivers' only import from above them."""

from __future__ import annotations

from amelia.drivers.runtime import DriverEnvironment

__all__ = ["default_environment"]


def default_environment() -> DriverEnvironment:
    """The environment of a driver made without one: this process's, as amelia's one
    reader of it builds it (`amelia.config.driver_environment`)."""
    from amelia.config import driver_environment

    return driver_environment()
