"""Optional parameters of amelia's public API are keyword-only: every function, class
constructor and public method a public module exports. A call then reads the same wherever
it stands, and a new optional parameter cannot shift the meaning of an old call. Methods a
class overrides from a library base (a server's handler, a log sink) keep the library's
signature. amelia.testing is left out: its script builders (`tool_use(name, input)`,
`add_issue(title, body)`) read as data, the way a test writes a script."""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.unit.test_exported_members import public_modules

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _overrides_library(cls: type, name: str) -> bool:
    return any(
        not base.__module__.startswith("amelia") and hasattr(base, name) for base in cls.__mro__[1:]
    )


def _callables(module_name: str) -> Iterator[tuple[str, Callable[..., Any]]]:
    module = importlib.import_module(module_name)
    for name in module.__all__:
        value = getattr(module, name)
        if inspect.isfunction(value) and value.__module__ == module_name:
            yield name, value
        elif inspect.isclass(value) and value.__module__ == module_name:
            for member, attribute in vars(value).items():
                if member.startswith("_") and member != "__init__":
                    continue
                if member != "__init__" and _overrides_library(value, member):
                    continue
                function = attribute
                if isinstance(attribute, staticmethod | classmethod):
                    function = attribute.__func__
                elif isinstance(attribute, property):
                    continue
                if inspect.isfunction(function):
                    yield f"{name}.{member}", function


def optional_positionals(module_name: str) -> list[str]:
    found: list[str] = []
    for name, function in _callables(module_name):
        try:
            signature = inspect.signature(function)
        except (TypeError, ValueError):
            continue
        found.extend(
            f"{name}({parameter.name}=…)"
            for parameter in signature.parameters.values()
            if parameter.kind in _POSITIONAL and parameter.default is not parameter.empty
        )
    return found


PRODUCT_MODULES = [name for name in public_modules() if not name.startswith("amelia.testing")]
LOOKUP_SUBJECTS = {"DriverFactory.get_driver(key=…)"}
"""What a lookup looks up comes first, and may be left out for the default:
`get_driver("api:openrouter", model=…)`, and `get_driver()` is the default driver."""


@pytest.mark.parametrize("module_name", PRODUCT_MODULES)
def test_optional_parameters_are_keyword_only(module_name: str) -> None:
    assert [name for name in optional_positionals(module_name) if name not in LOOKUP_SUBJECTS] == []


def test_the_check_names_optional_positionals_of_functions_constructors_and_methods(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    module = types.ModuleType("amelia_sample")
    source = """
import logging

def fine(required, *, keyword=0): ...
def loose(required, optional=0): ...

class Loose:
    def __init__(self, first, second=None): ...
    def method(self, value, flag=False): ...
    def _private(self, value=0): ...

class Handler(logging.Handler):
    def emit(self, record, extra=None): ...
"""
    exec(compile(source, "amelia_sample.py", "exec"), module.__dict__)
    module.__all__ = ["Handler", "Loose", "fine", "loose"]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "amelia_sample", module)

    assert optional_positionals("amelia_sample") == [
        "Loose.__init__(second=…)",
        "Loose.method(flag=…)",
        "loose(optional=…)",
    ]
