"""Driver registry: maps a driver key to a factory, importing driver modules lazily.

Lazy imports keep `amelia --help` from loading claude-agent-sdk or pydantic-ai.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, ClassVar

from amelia.core.types import DEFAULT_DRIVER, DriverType
from amelia.drivers.base import DriverInterface
from amelia.drivers.credentials import model_for_key
from amelia.drivers.default_environment import default_environment
from amelia.drivers.runtime import DriverEnvironment
from amelia.errors import ConfigError

__all__ = ["BUILTIN_DRIVERS", "DriverFactory", "DriverFactoryFn"]


DriverFactoryFn = Callable[..., DriverInterface]


def _lazy(module: str, attribute: str, **preset: Any) -> DriverFactoryFn:
    def build(**kwargs: Any) -> DriverInterface:
        driver_class = getattr(importlib.import_module(module), attribute)
        driver: DriverInterface = driver_class(**{**preset, **kwargs})
        return driver

    return build


def _api_driver(key: str) -> DriverFactoryFn:
    """Build an ApiDriver; a provider-specific key prefixes a bare model name, refuses a
    model of another provider, and without a model runs its own default
    (`model_for_key`)."""
    build = _lazy("amelia.drivers.api.driver", "ApiDriver")

    def factory(**kwargs: Any) -> DriverInterface:
        model = kwargs.get("model")
        if model is None or isinstance(model, str):
            kwargs = {**kwargs, "model": model_for_key(key, model)}
        return build(**kwargs)

    return factory


BUILTIN_DRIVERS: dict[DriverType, DriverFactoryFn] = {
    "cli:claude": _lazy("amelia.drivers.cli.claude", "ClaudeCliDriver"),
    "cli": _lazy("amelia.drivers.cli.claude", "ClaudeCliDriver"),
    "api:openai": _api_driver("api:openai"),
    "api:openrouter": _api_driver("api:openrouter"),
    "api": _api_driver("api"),
}
"""One factory for every key of `DriverType`."""


class DriverFactory:
    """Registry of driver factories by key (`cli:claude`, `api:openai`, …)."""

    _registry: ClassVar[dict[str, DriverFactoryFn]] = {
        key: factory for key, factory in BUILTIN_DRIVERS.items()
    }
    _takes_environment: ClassVar[set[str]] = set(BUILTIN_DRIVERS)
    """Keys whose factory accepts `environment=` (a `DriverEnvironment`)."""

    @classmethod
    def register_driver(
        cls, key: str, factory: DriverFactoryFn, *, takes_environment: bool = False
    ) -> None:
        """Register (or replace) the factory for `key`, e.g. a user's own provider.

        With `takes_environment`, `get_driver(..., environment=...)` hands the factory the
        environment, model credentials and home amelia runs with; otherwise it is left out.
        """
        if not key or not key.strip():
            raise ValueError("Driver key must be a non-empty string")
        cls._registry[key] = factory
        if takes_environment:
            cls._takes_environment.add(key)
        else:
            cls._takes_environment.discard(key)

    @classmethod
    def registered_keys(cls) -> list[str]:
        return sorted(cls._registry)

    @classmethod
    def resolve_key(cls, *, key: str | None = None) -> str:
        """The key to use: the argument, else `cli:claude`."""
        chosen = key or DEFAULT_DRIVER
        if chosen not in cls._registry:
            raise ConfigError(
                f"Unknown driver key: {chosen!r}. "
                f"Registered keys: {', '.join(cls.registered_keys())}"
            )
        return chosen

    @classmethod
    def get_driver(
        cls,
        key: str | None = None,
        *,
        environment: DriverEnvironment | None = None,
        **kwargs: Any,
    ) -> DriverInterface:
        """Create a driver for `key` (None or left out: `cli:claude`; an empty key is a
        `ConfigError`, a `ValueError`), the lookup's subject, so it comes first:
        `get_driver("api:openrouter", model="openrouter:…")`. Keyword arguments go to
        the driver's constructor, and `environment` too when its factory takes one; without
        `environment` such a factory gets this process's (`default_environment`), whose
        secrets never reach a child process and whose model keys are the usual variables."""
        if key is not None and (not isinstance(key, str) or not key.strip()):
            raise ConfigError("Driver key must be a non-empty string")
        chosen = cls.resolve_key(key=key)
        if chosen in cls._takes_environment:
            # Without one, the process's own as amelia reads it: secrets blanked for child
            # processes, the model's key from the variables its SDK reads.
            given = environment if environment is not None else default_environment()
            kwargs = {**kwargs, "environment": given}
        return cls._registry[chosen](**kwargs)
