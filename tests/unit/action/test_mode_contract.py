"""The engine owns the progress comment; modes prepare what they alone need."""

from __future__ import annotations

import ast
import io
from pathlib import Path
from typing import get_args

import pytest

import amelia.action.modes
from amelia.action.modes import MODE_MODULES, REQUESTABLE_KINDS, load_mode
from amelia.action.report import report_error
from amelia.action.workflow_io import WorkflowIO
from amelia.errors import ConfigError, GitHubError
from amelia.github.events import CommandKind
from amelia.redaction import Redactor

MODES = Path(amelia.action.modes.__file__).parent


def _progress_assignments(source: str) -> list[int]:
    """Lines that assign an attribute named `progress` (e.g. `ctx.progress = ...`)."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        lines += [
            t.lineno for t in targets if isinstance(t, ast.Attribute) and t.attr == "progress"
        ]
    return lines


def test_no_mode_creates_or_replaces_the_progress_comment() -> None:
    offenders = {
        path.name: lines
        for path in sorted(MODES.glob("*.py"))
        if (lines := _progress_assignments(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
    assert _progress_assignments("ctx.progress = tracker\n") == [1]


def test_implement_prepares_before_its_progress_comment_and_declares_its_stages() -> None:
    mode = load_mode("implement")
    assert mode is not None and mode.prepare is not None
    assert mode.stages == (
        "check out plan",
        "setup",
        "developer",
        "repository CI",
        "tests",
        "reviewer",
        "pull request",
    )


def test_requestable_kinds_are_the_registry_without_the_replies_only_a_comment_carries() -> None:
    assert set(REQUESTABLE_KINDS) == set(MODE_MODULES) - {"unknown-command", "ask"}
    assert set(MODE_MODULES) <= set(get_args(CommandKind))


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (ConfigError("INPUT_X: bad ghs_secret123"), 2, "::error::INPUT_X: bad ***"),
        (GitHubError("GitHub down"), 1, "::error::amelia failed: GitHub down"),
    ],
)
def test_an_error_outside_a_mode_is_one_line_and_its_branch_exit_code(
    error: ConfigError | GitHubError, code: int, line: str
) -> None:
    stream = io.StringIO()
    workflow = WorkflowIO(stream=stream)
    assert report_error(workflow, Redactor(secrets=["ghs_secret123"]), error) == code
    assert stream.getvalue().splitlines() == [line]
    assert workflow.outputs == {"conclusion": "failure"}
