"""The read-only profile's PreToolUse hook, called as the SDK calls it."""

from __future__ import annotations

from collections import deque
from typing import Any

import pytest
from claude_agent_sdk.types import HookContext, HookInput

from amelia.core.types import ToolProfileName
from amelia.drivers.cli._claude_hooks import deny_unless_read_only, read_only_bash_hooks
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


@pytest.mark.parametrize(("profile", "hooked"), [("read_only", True), ("full", False)])
def test_only_the_read_only_profile_installs_the_hook(
    profile: ToolProfileName, hooked: bool
) -> None:
    options = ClaudeCliDriver(tool_profile=profile)._options("/tmp", None, "system", None, deque())
    assert bool(options.hooks) is hooked
