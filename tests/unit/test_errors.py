"""One exception hierarchy: every failure amelia defines has the root, and each branch one
exit code."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import amelia
from amelia import errors
from amelia.errors import (
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    AmeliaError,
    InputError,
    RunError,
    ToolRefusedError,
    exit_code_for,
)


def _product_modules() -> list[str]:
    names = [
        info.name
        for info in pkgutil.walk_packages(amelia.__path__, prefix="amelia.")
        if not info.name.startswith("amelia.testing")
    ]
    return sorted(names)


def test_every_exception_class_of_the_product_derives_from_the_root() -> None:
    outside: list[str] = []
    for name in _product_modules():
        module = importlib.import_module(name)
        for _attr, value in inspect.getmembers(module, inspect.isclass):
            if value.__module__ != name or not issubclass(value, BaseException):
                continue
            if not issubclass(value, AmeliaError):
                outside.append(f"{name}.{value.__qualname__}")
    assert outside == []


def test_each_error_class_sits_in_one_branch() -> None:
    classes = [
        value
        for _name, value in inspect.getmembers(errors, inspect.isclass)
        if issubclass(value, AmeliaError) and value is not AmeliaError
    ]
    for cls in classes:
        branches = [b for b in (InputError, RunError, ToolRefusedError) if issubclass(cls, b)]
        assert len(branches) == 1, cls


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (errors.ConfigError("INPUT_X is bad"), EXIT_BAD_INPUT),
        (errors.EventError("payload"), EXIT_BAD_INPUT),
        (errors.BranchNameError("x.lock"), EXIT_BAD_INPUT),
        (errors.PlanPathError(".git/x"), EXIT_BAD_INPUT),
        (errors.BadInputError("--title"), EXIT_BAD_INPUT),
        (errors.PlanError("no plan"), EXIT_FAILED),
        (errors.AgentRunFailedError("developer", "max turns"), EXIT_FAILED),
        (errors.DriverError("no CLI"), EXIT_FAILED),
        (errors.GitError("git push failed"), EXIT_FAILED),
        (errors.GitHubRetryExhaustedError("502", status=502), EXIT_FAILED),
    ],
)
def test_the_two_branches_map_to_their_exit_codes(error: AmeliaError, code: int) -> None:
    assert exit_code_for(error) == code
    assert error.message == str(error)


def test_agent_errors_name_the_agent_in_their_message() -> None:
    error = errors.PlanError("the driver ended without a final answer")
    assert error.message == "architect: the driver ended without a final answer"
    assert (error.agent, error.reason) == ("architect", "the driver ended without a final answer")


def test_our_agent_error_does_not_share_pydantic_ais_name() -> None:
    from pydantic_ai import exceptions

    assert not set(errors.__all__) & set(dir(exceptions))


def test_bad_input_is_a_value_error_too_and_a_failed_run_is_not() -> None:
    classes = [
        value
        for _name, value in inspect.getmembers(errors, inspect.isclass)
        if issubclass(value, AmeliaError) and value is not AmeliaError
    ]
    inputs = [cls for cls in classes if issubclass(cls, InputError)]
    assert {cls.__name__ for cls in inputs} >= {"ConfigError", "EventError", "BadInputError"}
    assert all(issubclass(cls, ValueError) for cls in inputs)
    assert not any(issubclass(cls, ValueError) for cls in classes if cls not in inputs)
    with pytest.raises(ValueError, match="INPUT_X"):
        raise errors.ConfigError("INPUT_X is bad")
