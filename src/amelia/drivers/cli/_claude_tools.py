"""Which Claude Code tools each profile exposes, and the permission rules that confine them.

Measured with the CLI bundled in claude-agent-sdk 0.2.187 (Claude Code 2.1.330): its default
tool set has Read, Write, Edit, Bash, NotebookEdit, WebFetch, WebSearch and agent/cron
helpers but no Glob, Grep or LS. `tools` decides what exists at all (a call to anything else
returns "No such tool available", flagged as an error); `allowed_tools` only decides what runs
without asking, and in SDK mode a call that would ask is denied with an error result.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from amelia.core.types import ToolProfileName
from amelia.drivers.read_only_policy import READ_ONLY_GIT_SUBCOMMANDS, READ_ONLY_PROGRAMS

WEB_TOOLS = ("WebFetch", "WebSearch")
FILE_READING_TOOLS = ("Read", "Glob", "Grep")
"""The `read_files` profile: reading files and nothing else. Glob and Grep are not in the
CLI's default set but exist when named in `tools` (measured)."""

READ_ONLY_COMMANDS = (
    *sorted(READ_ONLY_PROGRAMS - {"git"}),
    *(f"git {subcommand}" for subcommand in sorted(READ_ONLY_GIT_SUBCOMMANDS)),
)
"""Bash prefixes the read-only profile may run: the programs of the shared read-only policy.
A prefix rule allows any arguments, so it is only the first check: the PreToolUse hook
(`_claude_hooks.py`) refuses the options that write or run programs (`--output=`, `-O`,
`-delete`, …) and any shell syntax. The CLI itself also refuses find's -delete/-exec/-fprint
and output redirection under a prefix rule (measured)."""


class ToolPermissions(BaseModel):
    """The CLI options that realise a tool profile."""

    model_config = ConfigDict(frozen=True)

    tools: tuple[str, ...]
    allowed_tools: tuple[str, ...]
    permission_mode: str
    setting_sources: tuple[str, ...] | None = None
    """Which settings files the CLI reads (None: its defaults, which include the working
    directory's CLAUDE.md and `.claude/`; empty: none at all, so nothing in the working
    directory or under HOME configures the CLI: no instructions, hooks or MCP servers)."""
    strict_mcp: bool = True
    """Use no MCP server configuration but what amelia passes (the servers of its gateway
    this agent was given, `amelia.drivers.mcp`): never a `.mcp.json` of the working
    directory, nor the servers `~/.claude.json` lists, which no settings source governs."""


def tool_permissions(profile: ToolProfileName, web_tools: bool = False) -> ToolPermissions:
    """`read_only`: Read plus read-only Bash commands; `full`: Bash, Read, Write, Edit;
    `read_files`: Read, Glob and Grep, no web tools whatever `web_tools` says, and no
    settings files (the working directory is data: its CLAUDE.md must not instruct)."""
    if profile == "read_files":
        return ToolPermissions(
            tools=FILE_READING_TOOLS,
            allowed_tools=FILE_READING_TOOLS,
            permission_mode="default",
            setting_sources=(),
        )
    web = WEB_TOOLS if web_tools else ()
    if profile == "read_only":
        bash_rules = tuple(f"Bash({command}:*)" for command in READ_ONLY_COMMANDS)
        return ToolPermissions(
            tools=("Read", "Bash", *web),
            allowed_tools=("Read", *bash_rules, *web),
            # "default" asks before any write; with no one to ask, the CLI denies it.
            permission_mode="default",
        )
    full = ("Bash", "Read", "Write", "Edit", "NotebookEdit")
    return ToolPermissions(
        tools=(*full, *web),
        allowed_tools=(*full, *web),
        # Never bypassPermissions: the CLI refuses it when running as root.
        permission_mode="acceptEdits",
    )
