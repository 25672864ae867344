"""The read-only profile's Bash, end to end: the bundled CLI with the shared policy's hook."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_server import text, tool_use
from tests.e2e.drivers.conftest import DriverMaker, collect

pytestmark = pytest.mark.e2e

ServerDrivers = Callable[[ScriptedAnthropicServer], DriverMaker]

WRITING_COMMANDS = [
    "git log --output=leak.txt",
    "git diff --output=x",
    "git show --output=shown.txt HEAD",
    "git log --outp=abbrev.txt",
    "git grep -Otouch pwned",
    "git grep -O'touch opened.txt' hello",
    "git -c core.pager='touch paged.txt' log",
    "find . -delete",
    "find . -name README.md -fprint found.txt",
    "ls; touch x",
    "ls && touch y",
    "ls\ntouch z",
    "cat README.md > copy.txt",
    "ls $(touch subst.txt)",
    "ls `touch tick.txt`",
    "git log --{output,oneline}=brace.txt",
    "touch plain.txt",
]

READING_COMMANDS = [
    ("git log --oneline", "init"),
    ("ls", "README.md"),
    ("cat README.md", "# demo"),
    ("grep -rn hello .", "notes.txt:1:hello pwned"),
    ("git grep -n demo", "README.md:1:# demo"),
]


def snapshot(root: Path) -> dict[str, float]:
    return {str(p.relative_to(root)): p.stat().st_mtime for p in root.rglob("*")}


def tool_results(messages: list[AgenticMessage]) -> list[AgenticMessage]:
    return [m for m in messages if m.type == AgenticMessageType.TOOL_RESULT]


async def test_read_only_bash_refuses_commands_that_write_and_runs_plain_reads(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    (repo / "notes.txt").write_text("hello pwned\n")
    before = snapshot(repo)
    script = [
        [tool_use("Bash", {"command": command})]
        for command in [*WRITING_COMMANDS, *(command for command, _ in READING_COMMANDS)]
    ]
    server = ScriptedAnthropicServer([*script, [text("looked around")]]).start()
    servers.append(server)
    messages = await collect(make_driver(server)(tool_profile="read_only"), "explore", repo)

    results = tool_results(messages)
    assert len(results) == len(WRITING_COMMANDS) + len(READING_COMMANDS)
    refused, read = results[: len(WRITING_COMMANDS)], results[len(WRITING_COMMANDS) :]
    for command, result in zip(WRITING_COMMANDS, refused, strict=True):
        assert (result.tool_name, result.is_error) == ("Bash", True), command
    for (command, expected), result in zip(READING_COMMANDS, read, strict=True):
        assert not result.is_error, (command, result.tool_output)
        assert expected in (result.tool_output or ""), (command, result.tool_output)
    assert snapshot(repo) == before
    assert [p.name for p in (repo / ".git" / "refs" / "heads").iterdir()] == ["main"]
    assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error


async def test_the_model_is_told_why_a_command_was_refused(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = ScriptedAnthropicServer(
        [[tool_use("Bash", {"command": "git log --output=leak.txt"})], [text("ok")]]
    ).start()
    servers.append(server)
    messages = await collect(make_driver(server)(tool_profile="read_only"), "explore", repo)

    [result] = tool_results(messages)
    assert result.is_error
    assert "git option '--output=leak.txt' is not allowed" in (result.tool_output or "")
    assert not (repo / "leak.txt").exists()
    answer = server.main_requests[-1].body or {}
    assert "--output=leak.txt' is not allowed" in str(answer["messages"][-1])
