"""The PreToolUse hook that holds the read-only profile's Bash to the shared read-only policy.

Permission rules such as `Bash(git log:*)` match a command's prefix only, so they allow
`git log --output=leak.txt`. The hook sees the whole command first and denies anything
`read_only_argv` refuses; for the rest it gives no opinion and the permission rules still
apply, so a command must pass both.
"""

from __future__ import annotations

from claude_agent_sdk.types import (
    HookContext,
    HookEvent,
    HookInput,
    HookMatcher,
    SyncHookJSONOutput,
)

from amelia.drivers.read_only_policy import read_only_argv
from amelia.errors import CommandRefused

HOOK_TIMEOUT_SECONDS = 30


def _deny(reason: str) -> SyncHookJSONOutput:
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }


async def deny_unless_read_only(
    hook_input: HookInput, tool_use_id: str | None, context: HookContext
) -> SyncHookJSONOutput:
    """Deny a Bash call whose command is not one plain read-only command."""
    if hook_input["hook_event_name"] != "PreToolUse" or hook_input["tool_name"] != "Bash":
        return {}
    command = hook_input["tool_input"].get("command")
    if not isinstance(command, str):
        return _deny("Refused: the Bash call has no command")
    try:
        read_only_argv(command)
    except CommandRefused as error:
        return _deny(f"Refused: {error}")
    return {}


def read_only_bash_hooks() -> dict[HookEvent, list[HookMatcher]]:
    """`ClaudeAgentOptions.hooks` for the read-only profile.

    `on_failure="block"`: should the callback fail or time out, the call is blocked rather
    than left to the prefix rules alone.
    """
    matcher = HookMatcher(
        matcher="Bash",
        hooks=[deny_unless_read_only],
        timeout=HOOK_TIMEOUT_SECONDS,
        on_failure="block",
    )
    return {"PreToolUse": [matcher]}
