"""The engine owns the progress comment; modes prepare what they alone need."""

from __future__ import annotations

import ast
import dataclasses
import io
from pathlib import Path
from types import SimpleNamespace
from typing import cast, get_args

import pytest

import amelia.action.modes
from amelia.action.engine import ActionPorts
from amelia.action.engine._engine import ActionRequest, _Engine
from amelia.action.engine._report import report_error
from amelia.action.modes import (
    MODE_MODULES,
    REQUESTABLE_KINDS,
    Mode,
    ModeContext,
    ModeExit,
    ModeOutcome,
    load_mode,
)
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
        str(path.relative_to(MODES)): lines
        for path in sorted(MODES.rglob("*.py"))
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


def _engine() -> _Engine:
    return _Engine(ActionRequest(), WorkflowIO(stream=io.StringIO()), ActionPorts())


async def _never_run(_ctx: ModeContext, _prepared: object) -> ModeOutcome:
    raise AssertionError("the run must not start after an early exit")


async def test_an_early_exit_from_the_preparation_is_the_outcome_and_the_run_never_starts() -> None:
    skipped = ModeOutcome(conclusion="skipped", outputs={"branch": "amelia/issue-7"})

    async def prepare(_ctx: ModeContext) -> None:
        raise ModeExit(skipped)

    mode = Mode("probe", _never_run, prepare=prepare, needs_workspace=False, stages=("one",))
    # Nothing of the context is touched before the preparation ends the mode.
    context = cast("ModeContext", SimpleNamespace())
    assert await _engine()._guarded(mode, context) is skipped


async def test_an_early_exit_from_the_run_is_its_outcome_not_a_failure() -> None:
    failed_setup = ModeOutcome(conclusion="failure", failure_reason="the setup failed")

    async def run(_ctx: ModeContext, _prepared: None) -> ModeOutcome:
        raise ModeExit(failed_setup)

    mode = Mode("probe", run, needs_workspace=False)
    assert await _engine()._guarded(mode, cast("ModeContext", SimpleNamespace())) is failed_setup


def _union_returns(source: str) -> list[str]:
    """Functions annotated to return an outcome or something else, and `partial` imports."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            returned = ast.unparse(node.returns)
            parts = {part.strip() for part in returned.split("|")}
            if len(parts) > 1 and ("ModeOutcome" in parts or {"int", "str"} <= parts):
                found.append(f"{node.name} -> {returned}")
        elif isinstance(node, ast.ImportFrom) and node.module == "functools":
            found += [f"functools.{alias.name}" for alias in node.names if alias.name == "partial"]
    return found


def test_no_mode_ends_early_through_its_return_type_or_hands_on_a_partial() -> None:
    action = MODES.parent
    offenders = {
        str(path.relative_to(action)): found
        for path in sorted(action.rglob("*.py"))
        if (found := _union_returns(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
    sample = "async def p(c) -> ModeOutcome | ModeRun: ...\ndef r() -> int | str: ...\n"
    assert _union_returns(sample) == ["p -> ModeOutcome | ModeRun", "r -> int | str"]


def test_the_mode_context_is_frozen_and_built_once() -> None:
    assert dataclasses.fields(ModeContext)  # a dataclass …
    assert ModeContext.__dataclass_params__.frozen  # type: ignore[attr-defined]  # … frozen


def _run_context_calls(source: str) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name | ast.Attribute)
        and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "RunContext"
    ]


def test_the_pipelines_run_context_of_a_mode_is_built_in_one_place() -> None:
    action = MODES.parent
    builders = {
        str(path.relative_to(action)): calls
        for path in sorted(action.rglob("*.py"))
        if (calls := _run_context_calls(path.read_text(encoding="utf-8")))
    }
    assert list(builders) == ["modes/base.py"]
    assert len(builders["modes/base.py"]) == 1
    assert _run_context_calls("x = pipeline.RunContext(repo_dir=p, make_driver=m)\n") == [1]
