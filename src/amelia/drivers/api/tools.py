"""The tools an API-driven agent sees, confined to its working directory.

A tool that refuses or fails raises ToolFailed: the model sees the reason and may go on,
and the run records the result as an error.
"""

# `timeout` is the tool argument name the model sees, not an asyncio timeout.
# ruff: noqa: ASYNC109

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass, field
from pathlib import Path
from typing import get_args

from pydantic_ai import RunContext, Tool
from pydantic_ai.exceptions import ToolFailed

from amelia.core.types import ToolProfileName
from amelia.drivers.api.files import ConfinedFiles, universal_newlines
from amelia.drivers.api.shell import SafeShellExecutor, ShellResult
from amelia.drivers.read_only_policy import read_only_git_argv
from amelia.errors import CommandRefused, PathRefused
from amelia.isolation.agent_user import AgentUser

__all__ = [
    "FILE_READING_TOOLS",
    "FULL_TOOLS",
    "MAX_LISTED_FILES",
    "MAX_SEARCHED_FILE_BYTES",
    "MAX_SEARCH_MATCHES",
    "READ_ONLY_TOOLS",
    "ToolContext",
    "check_tool_profile",
    "edit_file",
    "list_files",
    "read_file",
    "run_read_only_git",
    "run_shell_command",
    "search_code",
    "tools_for_profile",
    "write_file",
]


MAX_LISTED_FILES = 1_000
MAX_SEARCH_MATCHES = 200
MAX_SEARCHED_FILE_BYTES = 2_000_000
_SKIPPED_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache"})

FILE_READING_TOOLS = ("read_file", "list_files", "search_code")
READ_ONLY_TOOLS = (*FILE_READING_TOOLS, "run_shell_command")
FULL_TOOLS = (*READ_ONLY_TOOLS, "write_file", "edit_file")


@dataclass
class ToolContext:
    """What every tool call needs: where it runs and what it may touch."""

    cwd: Path
    _: KW_ONLY
    inherited: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The environment shell commands start from, minus its secrets."""
    agent: AgentUser | None = None
    """The unprivileged user shell commands run as and created files belong to (None:
    amelia's own)."""
    shell: SafeShellExecutor = field(init=False)
    files: ConfinedFiles = field(init=False)

    def __post_init__(self) -> None:
        if not self.cwd.is_dir():
            raise ValueError(f"working directory does not exist: {self.cwd}")
        self.cwd = self.cwd.resolve()
        self.shell = SafeShellExecutor(self.cwd, inherited=self.inherited, agent=self.agent)
        self.files = ConfinedFiles([self.cwd], owner=self.agent)

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.cwd)) if path != self.cwd else "."


def _refuse(error: Exception) -> ToolFailed:
    return ToolFailed(f"Refused: {error}")


async def read_file(ctx: RunContext[ToolContext], file_path: str) -> str:
    """Read a text file in the working directory.

    Args:
        file_path: Path relative to the working directory.
    """
    try:
        return await asyncio.to_thread(ctx.deps.files.read, file_path)
    except PathRefused as error:
        raise _refuse(error) from error
    except (OSError, ValueError) as error:
        raise ToolFailed(f"Cannot read '{file_path}': {error}") from error


def _list(context: ToolContext, pattern: str) -> list[str]:
    if Path(pattern).is_absolute() or ".." in Path(pattern).parts:
        raise PathRefused(f"pattern '{pattern}' must be relative and stay inside the directory")
    found: list[str] = []
    for path in sorted(context.cwd.glob(pattern)):
        if any(part in _SKIPPED_DIRS for part in path.relative_to(context.cwd).parts):
            continue
        if not path.resolve().is_relative_to(context.cwd):
            continue
        found.append(context.relative(path) + ("/" if path.is_dir() else ""))
        if len(found) > MAX_LISTED_FILES:
            break
    return found


async def list_files(ctx: RunContext[ToolContext], pattern: str) -> str:
    """List files matching a glob pattern, e.g. `**/*.py` or `src/*`.

    Args:
        pattern: Glob pattern relative to the working directory.
    """
    try:
        found = await asyncio.to_thread(_list, ctx.deps, pattern)
    except (PathRefused, ValueError, NotImplementedError) as error:
        raise _refuse(error) from error
    if not found:
        return f"No files match '{pattern}'."
    if len(found) > MAX_LISTED_FILES:
        return "\n".join(found[:MAX_LISTED_FILES]) + f"\n… [more than {MAX_LISTED_FILES} files]"
    return "\n".join(found)


def _search(context: ToolContext, pattern: str, path: str) -> list[str]:
    regex = re.compile(pattern)
    root = context.files.resolve(path)
    files = [root] if root.is_file() else sorted(root.rglob("*"))
    matches: list[str] = []
    for file in files:
        relative_parts = file.relative_to(context.cwd).parts if file != context.cwd else ()
        if any(part in _SKIPPED_DIRS for part in relative_parts) or not file.is_file():
            continue
        if not file.resolve().is_relative_to(context.cwd):
            continue
        try:
            with context.files.open_bytes(str(file)) as handle:
                if os.fstat(handle.fileno()).st_size > MAX_SEARCHED_FILE_BYTES:
                    continue
                data = handle.read()
        except (PathRefused, OSError):
            continue  # changed meanwhile, or not a regular file
        if b"\x00" in data[:8192]:
            continue  # binary
        for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
            if regex.search(line):
                matches.append(f"{context.relative(file)}:{number}: {line[:300]}")
                if len(matches) > MAX_SEARCH_MATCHES:
                    return matches
    return matches


async def search_code(ctx: RunContext[ToolContext], pattern: str, *, path: str = ".") -> str:
    """Search files for a regular expression; prints `file:line: text` for each match.

    Args:
        pattern: Python regular expression.
        path: File or directory to search, relative to the working directory.
    """
    try:
        matches = await asyncio.to_thread(_search, ctx.deps, pattern, path)
    except PathRefused as error:
        raise _refuse(error) from error
    except re.error as error:
        raise ToolFailed(f"Invalid regular expression '{pattern}': {error}") from error
    except OSError as error:
        raise ToolFailed(f"Cannot search '{path}': {error}") from error
    if not matches:
        return f"No matches for '{pattern}'."
    if len(matches) > MAX_SEARCH_MATCHES:
        return "\n".join(matches[:MAX_SEARCH_MATCHES]) + (
            f"\n… [more than {MAX_SEARCH_MATCHES} matches]"
        )
    return "\n".join(matches)


def _answer(result: ShellResult) -> str:
    """A command's output as the tool's answer; a command that failed is a tool error."""
    if not result.ok:
        raise ToolFailed(result.describe())
    return result.describe()


async def run_shell_command(
    ctx: RunContext[ToolContext], command: str, *, timeout: int = 30
) -> str:
    """Run a shell command in the working directory (tests, builds, git, …).

    Args:
        command: The command line, run by /bin/sh.
        timeout: Seconds before the command is killed (at most 300).
    """
    try:
        result = await ctx.deps.shell.execute(command, timeout_seconds=timeout)
    except CommandRefused as error:
        raise _refuse(error) from error
    return _answer(result)


async def run_read_only_git(
    ctx: RunContext[ToolContext], command: str, *, timeout: int = 30
) -> str:
    """Run a read-only git command: git log, diff, show, status, ls-files, blame, grep, ….

    Args:
        command: The git command line, e.g. `git log --oneline -5`.
        timeout: Seconds before the command is killed (at most 300).
    """
    try:
        argv = read_only_git_argv(command)
        result = await ctx.deps.shell.execute_argv(argv, timeout_seconds=timeout)
    except CommandRefused as error:
        raise _refuse(error) from error
    return _answer(result)


async def write_file(ctx: RunContext[ToolContext], file_path: str, content: str) -> str:
    """Create or overwrite a file in the working directory; parent directories are created.

    Args:
        file_path: Path relative to the working directory.
        content: The complete new content of the file.
    """
    try:
        target = await asyncio.to_thread(ctx.deps.files.write, file_path, content)
    except (PathRefused, ValueError) as error:
        raise _refuse(error) from error
    except OSError as error:
        raise ToolFailed(f"Cannot write '{file_path}': {error}") from error
    return f"Wrote {len(content.encode())} bytes to {ctx.deps.relative(target)}"


def _edit(context: ToolContext, file_path: str, old_text: str, new_text: str) -> Path:
    target = context.files.resolve(file_path)
    if not target.is_file():
        raise FileNotFoundError(f"'{file_path}' does not exist")
    with context.files.open_bytes(file_path, target=target) as handle:
        current = universal_newlines(handle.read().decode("utf-8"))
    count = current.count(old_text) if old_text else 0
    if count != 1:
        where = "is empty" if not old_text else f"occurs {count} times"
        raise ValueError(f"old_text {where} in '{file_path}'; it must occur exactly once")
    return context.files.write(file_path, current.replace(old_text, new_text, 1))


async def edit_file(
    ctx: RunContext[ToolContext], file_path: str, old_text: str, new_text: str
) -> str:
    """Replace one exact occurrence of `old_text` with `new_text` in a file.

    Args:
        file_path: Path relative to the working directory.
        old_text: Text to replace; must occur exactly once in the file.
        new_text: Replacement text.
    """
    try:
        target = await asyncio.to_thread(_edit, ctx.deps, file_path, old_text, new_text)
    except PathRefused as error:
        raise _refuse(error) from error
    except (OSError, ValueError) as error:
        raise ToolFailed(f"Cannot edit '{file_path}': {error}") from error
    return f"Edited {ctx.deps.relative(target)}"


def tools_for_profile(profile: ToolProfileName) -> list[Tool[ToolContext]]:
    """`read_files` only reads files in the working directory (no shell of any kind);
    `read_only` also inspects git history; `full` also runs commands and edits."""
    reading: list[Tool[ToolContext]] = [
        Tool(read_file, takes_ctx=True),
        Tool(list_files, takes_ctx=True),
        Tool(search_code, takes_ctx=True),
    ]
    if profile == "read_files":
        return reading
    if profile == "read_only":
        return [*reading, Tool(run_read_only_git, takes_ctx=True, name="run_shell_command")]
    check_tool_profile(profile)
    return [
        *reading,
        Tool(run_shell_command, takes_ctx=True),
        Tool(write_file, takes_ctx=True),
        Tool(edit_file, takes_ctx=True),
    ]


def check_tool_profile(profile: str) -> None:
    """Raise ValueError unless `profile` names a tool profile."""
    if profile not in get_args(ToolProfileName):
        raise ValueError(
            f"unknown tool profile {profile!r}; expected 'read_files', 'read_only' or 'full'"
        )
