"""The pipeline core never talks to GitHub or to a model SDK directly."""

from __future__ import annotations

import ast
from pathlib import Path

import amelia.core

PIPELINE_MODULES = ("orchestrator", "sinks", "planfile", "changes", "state", "types")
FORBIDDEN = ("github", "amelia.github", "claude_agent_sdk", "pydantic_ai", "amelia.action")


def _imports(path: Path) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


def test_pipeline_modules_import_no_github_or_sdk() -> None:
    root = Path(amelia.core.__file__).parent
    offenders = {
        name: imported
        for name in PIPELINE_MODULES
        for imported in _imports(root / f"{name}.py")
        if imported == "github"
        or imported.startswith(tuple(f"{f}." for f in FORBIDDEN))
        or imported in FORBIDDEN
    }
    assert offenders == {}
