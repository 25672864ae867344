"""PreToolUse hooks that hold a profile's tools to what it may do.

Read-only profile: permission rules such as `Bash(git log:*)` match a command's prefix
only, so they allow `git log --output=leak.txt`. The hook sees the whole command first and
denies anything `read_only_argv` refuses; for the rest it gives no opinion and the
permission rules still apply, so a command must pass both.

`read_files` profile: Claude Code's Read, Glob and Grep accept any absolute path; the hook
denies every path (and glob pattern) that leaves the working directory.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any

from claude_agent_sdk.types import (
    HookCallback,
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


FILE_TOOL_PATH_FIELDS: dict[str, tuple[str, ...]] = {
    "Read": ("file_path",),
    "Glob": ("path", "pattern"),
    "Grep": ("path", "glob"),
}
"""Inputs of Claude Code's file tools that name where they look."""


def path_outside(root: Path, value: str) -> bool:
    """True when `value` (a path or glob pattern, relative to `root` unless absolute)
    names anything outside `root`, symbolic links resolved. Any `..` is refused."""
    if ".." in PurePosixPath(value).parts:
        return True
    # Only the part before the first wildcard names a directory; the rest stays below it.
    wildcard = next((i for i, char in enumerate(value) if char in "*?[{"), None)
    fixed = value if wildcard is None else value[: value.rfind("/", 0, wildcard) + 1]
    target = (root / fixed).resolve()
    return not target.is_relative_to(root.resolve())


def confine_to(root: Path) -> HookCallback:
    """A hook denying Read, Glob and Grep calls whose path leaves `root`."""

    async def deny_outside(
        hook_input: HookInput, tool_use_id: str | None, context: HookContext
    ) -> SyncHookJSONOutput:
        if hook_input["hook_event_name"] != "PreToolUse":
            return {}
        fields = FILE_TOOL_PATH_FIELDS.get(hook_input["tool_name"])
        if fields is None:
            return {}  # not a file tool (StructuredOutput): `tools` decides what exists
        tool_input: dict[str, Any] = hook_input["tool_input"]
        for name in fields:
            value = tool_input.get(name)
            if value is None:
                continue
            if not isinstance(value, str) or path_outside(root, value):
                return _deny(f"Refused: {name} {value!r} is outside the working directory")
        return {}

    return deny_outside


def confined_file_hooks(root: Path) -> dict[HookEvent, list[HookMatcher]]:
    """`ClaudeAgentOptions.hooks` for the `read_files` profile; a check that fails or
    times out blocks the call."""
    matcher = HookMatcher(
        matcher="|".join(FILE_TOOL_PATH_FIELDS),
        hooks=[confine_to(root)],
        timeout=HOOK_TIMEOUT_SECONDS,
        on_failure="block",
    )
    return {"PreToolUse": [matcher]}
