"""The Action reaches GitHub only through the port: no module of `amelia.action` hands a
GitHub call to a thread, and only the one that opens the run's GitHub names the adapter."""

from __future__ import annotations

import ast
from pathlib import Path

import amelia.action

ACTION = Path(amelia.action.__file__).parent
OPENS_THE_ADAPTER = {"engine/_github_access.py"}
"""Where the run's `GitHubClient` is made (and wrapped in the dry run)."""


def _modules() -> list[Path]:
    return sorted(ACTION.rglob("*.py"))


def _names(node: ast.AST) -> set[str]:
    return {
        part
        for child in ast.walk(node)
        for part in (
            [child.id]
            if isinstance(child, ast.Name)
            else [child.attr]
            if isinstance(child, ast.Attribute)
            else []
        )
    }


def test_no_github_call_is_handed_to_a_thread() -> None:
    found = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "to_thread"
                and "github" in _names(node)
            ):
                found.append(f"{path.relative_to(ACTION)}:{node.lineno}")
    assert found == []


def test_only_the_engine_s_github_access_names_the_adapter() -> None:
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in (
                "amelia.github.client",
                "amelia.github._pygithub",
                "github",
            ):
                found.append(path.relative_to(ACTION).as_posix())
    assert set(found) <= OPENS_THE_ADAPTER


def test_the_checks_see_what_they_look_for() -> None:
    call = ast.parse("await asyncio.to_thread(ctx.github.get_pull, 7)")
    assert "github" in _names(call)
    assert "github" not in _names(ast.parse("await asyncio.to_thread(head_sha, repo)"))
