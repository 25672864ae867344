"""The read-only profile's PreToolUse hook, called as the SDK calls it."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any, cast

import pytest
from claude_agent_sdk.types import HookContext, HookInput

from amelia.core.types import ToolProfileName
from amelia.drivers.cli._claude_hooks import (
    confine_to,
    confined_file_hooks,
    deny_unless_read_only,
    path_outside,
    read_only_bash_hooks,
)
from amelia.drivers.cli.claude import ClaudeCliDriver

NO_SIGNAL: HookContext = {"signal": None}


def bash_call(tool_input: dict[str, Any], tool_name: str = "Bash") -> HookInput:
    return {
        "hook_event_name": "PreToolUse",
        "session_id": "s",
        "transcript_path": "/dev/null",
        "cwd": "/tmp",
        "tool_name": tool_name,
        "tool_input": tool_input,
        "tool_use_id": "t1",
    }


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("git log --output=leak.txt", "Refused: git option '--output=leak.txt' is not allowed"),
        ("ls; touch x", "Refused: read-only agents may only run one plain command"),
        ("find . -delete", "Refused: find action '-delete'"),
    ],
)
async def test_a_refused_command_is_denied_with_the_policy_reason(
    command: str, reason: str
) -> None:
    answer = await deny_unless_read_only(bash_call({"command": command}), "t1", NO_SIGNAL)
    specific: dict[str, object] = dict(answer.get("hookSpecificOutput", {}))
    assert specific["hookEventName"] == "PreToolUse"
    assert specific["permissionDecision"] == "deny"
    assert reason in str(specific["permissionDecisionReason"])


async def test_a_bash_call_without_a_command_is_denied() -> None:
    answer = await deny_unless_read_only(bash_call({"command": ["ls"]}), "t1", NO_SIGNAL)
    specific: dict[str, object] = dict(answer.get("hookSpecificOutput", {}))
    assert specific["permissionDecision"] == "deny"


@pytest.mark.parametrize("command", ["git log --oneline", "ls -la", "grep -rn foo ."])
async def test_a_read_only_command_gets_no_opinion_so_the_permission_rules_still_apply(
    command: str,
) -> None:
    assert await deny_unless_read_only(bash_call({"command": command}), "t1", NO_SIGNAL) == {}


async def test_other_tools_are_left_alone() -> None:
    call = bash_call({"file_path": "/etc/passwd"}, tool_name="Read")
    assert await deny_unless_read_only(call, "t1", NO_SIGNAL) == {}


def test_the_hook_blocks_when_it_fails() -> None:
    [matcher] = read_only_bash_hooks()["PreToolUse"]
    assert (matcher.matcher, matcher.on_failure) == ("Bash", "block")
    assert matcher.hooks == [deny_unless_read_only]


@pytest.mark.parametrize(
    ("profile", "hooked"), [("read_only", "Bash"), ("full", None), ("read_files", "Read|Glob|Grep")]
)
def test_each_profile_installs_its_own_hook(profile: ToolProfileName, hooked: str | None) -> None:
    options = ClaudeCliDriver(tool_profile=profile)._options("/tmp", None, "system", None, deque())
    matchers = (options.hooks or {}).get("PreToolUse", [])
    assert [matcher.matcher for matcher in matchers] == ([hooked] if hooked else [])


@pytest.mark.parametrize(
    ("value", "outside"),
    [
        ("src/app.py", False),
        ("", False),
        ("**/*.py", False),
        ("src/**/x?.md", False),
        ("../x", True),
        ("src/../../x", True),
        ("/etc/passwd", True),
        ("/proc/1/environ", True),
        ("/etc/*", True),
        ("/**/environ", True),
        ("link/secret", True),  # a symbolic link planted inside pointing out
    ],
)
def test_paths_outside_the_directory(tmp_path: Path, value: str, outside: bool) -> None:
    root = tmp_path / "head"
    (root / "src").mkdir(parents=True)
    (root / "link").symlink_to(tmp_path)
    assert path_outside(root, value) is outside


async def test_file_tools_are_held_inside_the_working_directory(tmp_path: Path) -> None:
    hook = confine_to(tmp_path)

    async def decision(tool: str, tool_input: dict[str, Any]) -> object:
        answer = await hook(bash_call(tool_input, tool_name=tool), "t1", NO_SIGNAL)
        specific = cast(dict[str, Any], answer).get("hookSpecificOutput") or {}
        return cast(dict[str, Any], specific).get("permissionDecision")

    assert await decision("Read", {"file_path": str(tmp_path / "a.py")}) is None
    assert await decision("Read", {"file_path": "a.py"}) is None
    assert await decision("Read", {"file_path": "/proc/1/environ"}) == "deny"
    assert await decision("Glob", {"pattern": "**/*"}) is None
    assert await decision("Glob", {"pattern": "*", "path": "/github/runner_temp"}) == "deny"
    assert await decision("Grep", {"pattern": "token", "path": "/github/home"}) == "deny"
    assert await decision("Grep", {"pattern": "token", "glob": "../**"}) == "deny"
    assert await decision("Read", {"file_path": ["a"]}) == "deny"
    assert await decision("StructuredOutput", {"verdict": "approved"}) is None
    [matcher] = confined_file_hooks(tmp_path)["PreToolUse"]
    assert matcher.on_failure == "block"
