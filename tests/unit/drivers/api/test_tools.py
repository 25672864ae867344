"""Each tool as the model uses it, through the driver with a scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelResponse

from amelia.core.types import ToolProfileName
from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from tests.git_helpers import init_repo
from tests.unit.drivers.api.helpers import ScriptedModel, call, collect


async def run_tool(
    workdir: Path, name: str, args: dict[str, Any], profile: ToolProfileName = "full"
) -> AgenticMessage:
    scripted = ScriptedModel([ModelResponse(parts=[call(name, args, "c1")]), "done"])
    messages = await collect(ApiDriver(model=scripted.model, tool_profile=profile), "go", workdir)
    results = [m for m in messages if m.type == AgenticMessageType.TOOL_RESULT]
    assert len(results) == 1 and results[0].tool_name == name
    assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error
    return results[0]


async def test_write_file_creates_parents(workdir: Path) -> None:
    result = await run_tool(workdir, "write_file", {"file_path": "a/b.py", "content": "x = 1\n"})
    assert not result.is_error
    assert (workdir / "a" / "b.py").read_text() == "x = 1\n"


async def test_edit_file_replaces_one_occurrence(workdir: Path) -> None:
    result = await run_tool(
        workdir,
        "edit_file",
        {"file_path": "hello.txt", "old_text": "world", "new_text": "there"},
    )
    assert not result.is_error
    assert (workdir / "hello.txt").read_text() == "hello there\n"


async def test_edit_file_refuses_ambiguous_or_missing_text(workdir: Path) -> None:
    (workdir / "twice.txt").write_text("a a")
    twice = await run_tool(
        workdir, "edit_file", {"file_path": "twice.txt", "old_text": "a", "new_text": "b"}
    )
    assert twice.is_error and "occurs 2 times" in (twice.tool_output or "")
    missing = await run_tool(
        workdir, "edit_file", {"file_path": "hello.txt", "old_text": "nope", "new_text": "b"}
    )
    assert missing.is_error and "occurs 0 times" in (missing.tool_output or "")
    assert (workdir / "twice.txt").read_text() == "a a"


async def test_list_files_and_search_code(workdir: Path) -> None:
    (workdir / "pkg").mkdir()
    (workdir / "pkg" / "mod.py").write_text("def answer():\n    return 42\n")
    listed = await run_tool(workdir, "list_files", {"pattern": "**/*.py"}, "read_only")
    assert listed.tool_output == "pkg/mod.py"
    found = await run_tool(workdir, "search_code", {"pattern": r"return \d+"}, "read_only")
    assert found.tool_output == "pkg/mod.py:2:     return 42"
    escaped = await run_tool(workdir, "list_files", {"pattern": "../*"}, "read_only")
    assert escaped.is_error
    outside = await run_tool(workdir, "search_code", {"pattern": "x", "path": ".."}, "read_only")
    assert outside.is_error


async def test_run_shell_command_success_and_failure(workdir: Path) -> None:
    ok = await run_tool(workdir, "run_shell_command", {"command": "cat hello.txt"})
    assert not ok.is_error and ok.tool_output == "hello world\n"
    failed = await run_tool(workdir, "run_shell_command", {"command": "ls missing-file"})
    assert failed.is_error
    assert "exit code 2" in (failed.tool_output or "")
    assert "missing-file" in (failed.tool_output or "")
    refused = await run_tool(workdir, "run_shell_command", {"command": "sudo ls"})
    assert refused.is_error and "Refused" in (refused.tool_output or "")


async def test_read_only_git_runs_git_log(workdir: Path) -> None:
    init_repo(workdir, message="first commit")
    log = await run_tool(
        workdir, "run_shell_command", {"command": "git log --format=%s"}, "read_only"
    )
    assert not log.is_error and log.tool_output == "first commit\n"
