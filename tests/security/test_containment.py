"""Agent containment, end to end: the real drivers run real tools against scripted models.

Secrets planted in os.environ never reach a tool's environment (nor, through it, the model);
the API driver's file tools cannot write outside the checkout or into `.git/`; the
read-only profiles of both drivers cannot create files.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from amelia.core.types import ToolProfileName
from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing import anthropic_server as anthropic
from amelia.testing import openai_server as openai
from tests.security.conftest import HARMLESS, process_environment

pytestmark = pytest.mark.e2e


def tool_results(messages: list[AgenticMessage]) -> list[AgenticMessage]:
    return [m for m in messages if m.type == AgenticMessageType.TOOL_RESULT]


def files_of(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def claude_driver(
    server: ScriptedAnthropicServer, home: Path, profile: ToolProfileName
) -> ClaudeCliDriver:
    home.mkdir(exist_ok=True)
    env = {
        "ANTHROPIC_BASE_URL": server.url,
        "ANTHROPIC_API_KEY": "sk-ant-model-connection-key",
        "HOME": str(home),
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    return ClaudeCliDriver(
        tool_profile=profile,
        amelia_home=home / ".amelia",
        env=env,
        timeout_seconds=120,
        environment=process_environment(),
    )


async def run_claude(driver: ClaudeCliDriver, cwd: Path) -> list[AgenticMessage]:
    return [m async for m in driver.execute_agentic("go", str(cwd))]


async def run_api(driver: ApiDriver, cwd: Path) -> list[AgenticMessage]:
    return [m async for m in driver.execute_agentic("go", str(cwd))]


def assert_no_secret(text: str, planted: dict[str, str]) -> None:
    for name, value in planted.items():
        assert value not in text, f"{name} leaked"


async def test_claude_bash_tool_sees_no_secret(
    checkout: Path,
    tmp_path: Path,
    planted: dict[str, str],
    anthropic_servers: list[ScriptedAnthropicServer],
) -> None:
    server = ScriptedAnthropicServer(
        [
            [anthropic.tool_use("Bash", {"command": "env"})],
            [anthropic.tool_use("Bash", {"command": "cat /proc/self/environ | tr '\\0' '\\n'"})],
            [anthropic.text("done")],
        ]
    ).start()
    anthropic_servers.append(server)
    messages = await run_claude(claude_driver(server, tmp_path / "home", "full"), checkout)

    outputs = [r.tool_output or "" for r in tool_results(messages)]
    assert len(outputs) == 2 and all(f"{HARMLESS[0]}={HARMLESS[1]}" in o for o in outputs)
    for output in outputs:
        assert_no_secret(output, planted)
    # What the model was sent back holds no secret either.
    assert_no_secret(json.dumps([r.body for r in server.requests]), planted)
    assert os.environ["GITHUB_TOKEN"] == planted["GITHUB_TOKEN"]


async def test_api_shell_tool_sees_no_secret_nor_the_model_key(
    checkout: Path, planted: dict[str, str], openai_server: ScriptedOpenAIServer
) -> None:
    openai_server.add_turns(
        [openai.tool_call("run_shell_command", {"command": "env"}, "e1")],
        [openai.tool_call("run_shell_command", {"command": "cat /proc/self/environ"}, "e2")],
        [openai.text("done")],
    )
    messages = await run_api(
        ApiDriver(model="openai:gpt-4o", max_retries=0, environment=process_environment()), checkout
    )

    outputs = [r.tool_output or "" for r in tool_results(messages)]
    assert len(outputs) == 2 and all(HARMLESS[1] in o for o in outputs)
    for output in outputs:
        assert_no_secret(output, {**planted, "OPENAI_API_KEY": "sk-test-openai-model-key"})
    assert_no_secret(json.dumps([r.body for r in openai_server.requests]), planted)


ESCAPING_WRITES: list[tuple[str, dict[str, Any]]] = [
    ("write_file", {"file_path": "../outside.txt", "content": "pwned"}),
    ("write_file", {"file_path": "{outside}/absolute.txt", "content": "pwned"}),
    ("write_file", {"file_path": "link/through-symlink.txt", "content": "pwned"}),
    ("write_file", {"file_path": "src/../../dotdot.txt", "content": "pwned"}),
    ("write_file", {"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\nid\n"}),
    ("write_file", {"file_path": ".GIT/config", "content": "[core]\n"}),
    ("write_file", {"file_path": "sub/../.git/info/attributes", "content": "x"}),
    ("edit_file", {"file_path": ".git/HEAD", "old_text": "main", "new_text": "evil"}),
    ("edit_file", {"file_path": "link/existing.txt", "old_text": "a", "new_text": "pwned"}),
]


async def test_api_file_tools_cannot_write_outside_or_into_git(
    checkout: Path, tmp_path: Path, openai_server: ScriptedOpenAIServer
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "existing.txt").write_text("a")
    (checkout / "link").symlink_to(outside)
    git_before = {p: p.read_bytes() for p in (checkout / ".git").rglob("*") if p.is_file()}
    for index, (tool, args) in enumerate(ESCAPING_WRITES):
        filled = {k: v.format(outside=outside) for k, v in args.items()}
        openai_server.add_turns([openai.tool_call(tool, filled, f"w{index}")])
    openai_server.add_turns([openai.text("Could not write anything.")])
    messages = await run_api(
        ApiDriver(model="openai:gpt-4o", max_retries=0, environment=process_environment()), checkout
    )

    results = tool_results(messages)
    assert len(results) == len(ESCAPING_WRITES)
    assert all(r.is_error and "Refused" in (r.tool_output or "") for r in results)
    assert sorted(p.name for p in outside.iterdir()) == ["existing.txt"]
    assert (outside / "existing.txt").read_text() == "a"
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "dotdot.txt").exists()
    git_after = {p: p.read_bytes() for p in (checkout / ".git").rglob("*") if p.is_file()}
    assert git_after == git_before
    assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error


READ_ONLY_API_ATTEMPTS: list[tuple[str, dict[str, Any]]] = [
    ("write_file", {"file_path": "new.txt", "content": "x"}),
    ("edit_file", {"file_path": "README.md", "old_text": "hello", "new_text": "bye"}),
    ("run_shell_command", {"command": "touch touched.txt"}),
    ("run_shell_command", {"command": "git log > log.txt"}),
    ("run_shell_command", {"command": "git log --output=log.txt"}),
    ("run_shell_command", {"command": "git grep -O'touch pager.txt' hello"}),
    ("run_shell_command", {"command": "git grep -nOtouch hello"}),
    ("run_shell_command", {"command": "git grep --open-files=touch hello"}),
    ("run_shell_command", {"command": "git branch evil"}),
    ("run_shell_command", {"command": "git -c core.pager=touch log"}),
]


async def test_api_read_only_profile_cannot_create_files(
    checkout: Path, openai_server: ScriptedOpenAIServer
) -> None:
    before = files_of(checkout)
    for index, (tool, args) in enumerate(READ_ONLY_API_ATTEMPTS):
        openai_server.add_turns([openai.tool_call(tool, args, f"r{index}")])
    openai_server.add_turns(
        [openai.tool_call("run_shell_command", {"command": "git log --oneline"}, "ok")],
        [openai.text("looked around")],
    )
    driver = ApiDriver(
        model="openai:gpt-4o",
        tool_profile="read_only",
        max_retries=0,
        environment=process_environment(),
    )
    messages = await run_api(driver, checkout)

    offered = {tool["name"] for tool in openai_server.requests[0].body["tools"]}
    assert offered == {"read_file", "list_files", "search_code", "run_shell_command"}
    *refused, allowed = tool_results(messages)
    assert [r.is_error for r in refused] == [True] * len(READ_ONLY_API_ATTEMPTS)
    assert not allowed.is_error and "init" in (allowed.tool_output or "")
    assert files_of(checkout) == before
    assert (checkout / "README.md").read_text() == "# demo\nhello\n"


READ_ONLY_CLAUDE_ATTEMPTS: list[tuple[str, dict[str, Any]]] = [
    ("Write", {"file_path": "{cwd}/plan.txt", "content": "x"}),
    ("Edit", {"file_path": "{cwd}/README.md", "old_string": "hello", "new_string": "bye"}),
    ("Bash", {"command": "touch touched.txt"}),
    ("Bash", {"command": "ls > listing.txt"}),
    ("Bash", {"command": "echo x >> README.md"}),
    ("Bash", {"command": "cat README.md | tee copy.txt"}),
    ("Bash", {"command": "find . -name README.md -fprint found.txt"}),
    ("Bash", {"command": "git grep -O'touch pager.txt' hello"}),
    ("Bash", {"command": "git grep -Otouch hello"}),
    ("Bash", {"command": "git branch evil"}),
    ("Bash", {"command": "tree -o tree.txt"}),
    ("Bash", {"command": "git log --output=log.txt"}),
    ("Bash", {"command": "git diff --output=diff.txt HEAD"}),
    ("Bash", {"command": "git show --outp=show.txt"}),
    ("Bash", {"command": "git grep -nOtouch hello"}),
    ("Bash", {"command": "ls; touch chained.txt"}),
]


async def test_claude_read_only_profile_cannot_create_files(
    checkout: Path, tmp_path: Path, anthropic_servers: list[ScriptedAnthropicServer]
) -> None:
    before = files_of(checkout)
    script: list[anthropic.Turn] = [
        [anthropic.tool_use(tool, {k: v.format(cwd=checkout) for k, v in args.items()})]
        for tool, args in READ_ONLY_CLAUDE_ATTEMPTS
    ]
    server = ScriptedAnthropicServer([*script, [anthropic.text("looked around")]]).start()
    anthropic_servers.append(server)
    messages = await run_claude(claude_driver(server, tmp_path / "home", "read_only"), checkout)

    results = tool_results(messages)
    assert len(results) == len(READ_ONLY_CLAUDE_ATTEMPTS)
    assert [(r.tool_name, r.is_error) for r in results] == [
        (tool, True) for tool, _ in READ_ONLY_CLAUDE_ATTEMPTS
    ]
    assert files_of(checkout) == before
    assert (checkout / "README.md").read_text() == "# demo\nhello\n"
    branches = (checkout / ".git" / "refs" / "heads").iterdir()
    assert [p.name for p in branches] == ["main"]
