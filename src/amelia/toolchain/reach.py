"""Which parts of the toolchain's `PATH` the agents' user could not reach.

The setup runs as the container's user (root), the test command and the agents' tools as
the unprivileged agent user. A `PATH` entry only root may enter (pyenv under
`/root/.pyenv`, cargo under `/root/.cargo`) still works for the setup, but the agent user's
shell skips it: its `python3` is then another one (`/usr/bin/python3`, without what the
setup installed) or none, and every round's tests fail for a reason no model can fix.

`blocked_toolchain` finds what the toolchain relies on there: a directory the setup added
to `PATH`, and every program the test command starts that `PATH` finds in a place the
agent user cannot reach (with what that user would run instead). `unreachable_entries`
lists the other entries, which matter only to commands the agents think of.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["BlockedProgram", "ToolchainReach", "blocked_toolchain", "command_programs"]

CanReach = Callable[[Path], bool]

_SEPARATORS = frozenset({";", "&", "&&", "|", "||", "|&", "(", ")", ";;", "{", "}", "!"})
_PREFIXES = frozenset(
    {"if", "then", "else", "elif", "while", "until", "do", "time", "command", "exec", "nohup"}
)
"""Words after which the next word is a command too."""
_BUILTINS = frozenset(
    {
        ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "case", "cd",
        "compgen", "complete", "continue", "declare", "dirs", "disown", "echo", "enable",
        "esac", "eval", "export", "false", "fc", "fg", "fi", "for", "function", "getopts",
        "hash", "help", "history", "in", "jobs", "kill", "let", "local", "logout", "popd",
        "printf", "pushd", "pwd", "read", "readonly", "return", "select", "set", "shift",
        "shopt", "source", "test", "trap", "true", "type", "typeset", "ulimit", "umask",
        "unalias", "unset", "wait", "done",
    }
)  # fmt: skip
"""What bash runs itself, whatever `PATH` says."""


def command_programs(command: str) -> list[str]:
    """The words of the shell command line `command` that bash looks up on `PATH`: the
    first word of each simple command, variable assignments, builtins and keywords
    aside; words holding an expansion are left out (their value is not known here)."""
    found: list[str] = []
    for line in command.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        at_command = True
        try:
            words = list(lexer)
        except ValueError:  # an unclosed quote: bash will say so itself
            continue
        for word in words:
            if word in _SEPARATORS or word in _PREFIXES:
                at_command = True
                continue
            if not at_command:
                continue
            if "=" in word.split("/", 1)[0] and not word.startswith("="):
                continue  # NAME=value before the command
            at_command = False
            if word in _BUILTINS or any(c in word for c in "$`*?[~"):
                continue
            found.append(word)
    return list(dict.fromkeys(found))


def _which(program: str, entries: Sequence[str]) -> Path | None:
    for entry in entries:
        candidate = Path(entry) / program
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass(frozen=True)
class BlockedProgram:
    """A program the test command starts that `PATH` finds where the agent user cannot
    reach: `found` as root finds it, `instead` what the agent user would run (None:
    nothing, "command not found")."""

    program: str
    found: Path
    instead: Path | None


@dataclass(frozen=True, kw_only=True)
class ToolchainReach:
    """What the toolchain relies on that the agent user cannot reach."""

    added: tuple[str, ...] = ()
    """Directories the setup added to `PATH`."""
    programs: tuple[BlockedProgram, ...] = ()
    """Programs of the test command."""
    others: tuple[str, ...] = ()
    """Other existing `PATH` entries (nothing the toolchain names comes from them)."""

    @property
    def blocked(self) -> bool:
        return bool(self.added or self.programs)


def _absolute_entries(path: str) -> list[str]:
    return [entry for entry in path.split(os.pathsep) if entry.startswith("/")]


def blocked_toolchain(
    path: str,
    *,
    can_reach: CanReach,
    added: Sequence[str] = (),
    test_command: str | None = None,
) -> ToolchainReach:
    """What of `path` (the agents' and the test command's `PATH`) the toolchain relies on
    and `can_reach` (the agent user's view) says that user cannot reach: the directories
    of `added` (the setup's additions) and the programs of `test_command`."""
    entries = _absolute_entries(path)
    reachable = [entry for entry in entries if can_reach(Path(entry))]
    closed = [entry for entry in entries if entry not in reachable and Path(entry).is_dir()]
    blocked_added = tuple(
        entry for entry in dict.fromkeys(added) if entry.startswith("/") and entry in closed
    )
    programs: list[BlockedProgram] = []
    for program in command_programs(test_command or ""):
        if "/" in program:
            if program.startswith("/") and Path(program).exists() and not can_reach(Path(program)):
                programs.append(BlockedProgram(program, Path(program), None))
            continue
        found = _which(program, entries)
        if found is not None and not can_reach(found):
            programs.append(BlockedProgram(program, found, _which(program, reachable)))
    named = {str(p.found.parent) for p in programs} | set(blocked_added)
    others = tuple(entry for entry in dict.fromkeys(closed) if entry not in named)
    return ToolchainReach(added=blocked_added, programs=tuple(programs), others=others)
