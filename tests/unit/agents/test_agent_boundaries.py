"""Agents see only AgenticMessage: no SDK imports and no checks on concrete driver classes."""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

import amelia.agents

SDK_PACKAGES = {"claude_agent_sdk", "pydantic_ai", "github"}
CONCRETE_DRIVER_MODULES = ("amelia.drivers.cli", "amelia.drivers.api")
DRIVER_CLASSES = {"ClaudeCliDriver", "ApiDriver", "ScriptedDriver"}


def _agent_modules() -> list[Path]:
    root = Path(amelia.agents.__file__).parent
    return [root / f"{info.name}.py" for info in pkgutil.iter_modules([str(root)])] + [
        root / "__init__.py"
    ]


def _imported(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def _isinstance_targets(tree: ast.AST) -> list[str]:
    targets: list[str] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in {"isinstance", "issubclass"}
            and len(node.args) == 2
        ):
            targets += [
                sub.id if isinstance(sub, ast.Name) else sub.attr
                for sub in ast.walk(node.args[1])
                if isinstance(sub, ast.Name | ast.Attribute)
            ]
    return targets


def test_every_agent_module_is_checked() -> None:
    names = {path.stem for path in _agent_modules()}
    assert {"architect", "developer", "reviewer", "prompts"} <= names


def test_agents_import_no_sdk_or_concrete_driver() -> None:
    offenders = {
        path.name: name
        for path in _agent_modules()
        for name in _imported(ast.parse(path.read_text()))
        if name.split(".")[0] in SDK_PACKAGES or name.startswith(CONCRETE_DRIVER_MODULES)
    }
    assert offenders == {}


def test_agents_never_check_the_driver_class() -> None:
    offenders = {
        path.name: sorted(DRIVER_CLASSES & set(_isinstance_targets(ast.parse(path.read_text()))))
        for path in _agent_modules()
    }
    assert all(found == [] for found in offenders.values()), offenders


def test_checker_detects_a_violation() -> None:
    sample = ast.parse(
        "from claude_agent_sdk import query\nimport pydantic_ai\n"
        "if isinstance(driver, ClaudeCliDriver): pass\n"
    )
    assert _imported(sample) == ["claude_agent_sdk", "pydantic_ai"]
    assert "ClaudeCliDriver" in _isinstance_targets(sample)
