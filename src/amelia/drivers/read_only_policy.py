"""Which commands a read-only agent may run, for every driver.

A read-only agent explores the checkout and its history. Whatever the model asks for, the
command must be one plain program from a short list, with no option that writes a file or
runs another program, and no shell syntax that could chain, redirect or expand into
something else. Both drivers refuse with `CommandRefused`, whose message says which rule.
"""

from __future__ import annotations

from amelia.errors import CommandRefused

__all__ = [
    "MAX_COMMAND_CHARS",
    "READ_ONLY_GIT_SUBCOMMANDS",
    "READ_ONLY_PROGRAMS",
    "check_git_arguments",
    "read_only_argv",
    "read_only_git_argv",
    "split_plain_command",
]


MAX_COMMAND_CHARS = 10_000


READ_ONLY_GIT_SUBCOMMANDS = frozenset(
    {
        "log",
        "diff",
        "show",
        "status",
        "ls-files",
        "ls-tree",
        "blame",
        "grep",
        "rev-parse",
        "shortlog",
        "describe",
        "cat-file",
        "merge-base",
        "rev-list",
    }
)

READ_ONLY_PROGRAMS = frozenset(
    {"ls", "cat", "head", "tail", "wc", "pwd", "stat", "find", "grep", "rg", "git"}
)
"""Programs with no option that writes or runs anything, once the checks below pass."""

_GIT_FORBIDDEN_OPTIONS = (
    "-c",
    "-C",
    "--config-env",
    "--exec-path",
    "--git-dir",
    "--work-tree",
    "--output",
    "--ext-diff",
    "--textconv",
    "-O",
    "--open-files-in-pager",
)
_GIT_FORBIDDEN_LONG = tuple(opt for opt in _GIT_FORBIDDEN_OPTIONS if opt.startswith("--"))
_GIT_LEGITIMATE_PREFIXES = frozenset({"--text"})
"""Options that are themselves prefixes of a forbidden one; git matches them exactly."""
_GREP_VALUE_FLAGS = frozenset("efABCm")

_FIND_FORBIDDEN = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
)
_RG_FORBIDDEN = ("--pre", "--hostname-bin", "--search-zip", "-z")
"""`--pre` and `--hostname-bin` run a program; `--search-zip` runs decompressors."""

_UNQUOTED_SYNTAX = frozenset(";&|<>()`$\n\r{}")
"""Outside quotes these chain, redirect, substitute or brace-expand: refused."""
_DOUBLE_QUOTED_SYNTAX = frozenset("`$")
"""Inside double quotes these still substitute: refused."""
_GLOB = frozenset("*?[")
_GLOB_SENSITIVE = frozenset({"git", "find", "rg"})
"""A glob may expand to a file named like an option (`-delete`, `--output=x`, `--pre=sh`);
for these programs such an option writes or runs something, so their globs are refused."""


def _refuse_syntax(char: str) -> CommandRefused:
    shown = {"\n": "a newline", "\r": "a carriage return"}.get(char, f"'{char}'")
    return CommandRefused(
        f"read-only agents may only run one plain command; shell syntax ({shown}) is not allowed"
    )


def split_plain_command(command: str) -> tuple[list[str], bool]:
    """The words a POSIX shell would pass for `command`, and whether any unquoted glob is in it.

    Only quoting and backslashes are understood; anything that would make the shell do more
    than split words (operators, redirections, substitutions, brace expansion, comments) is
    refused rather than interpreted, so the words returned are the words that run.
    """
    words: list[str] = []
    current: list[str] = []
    in_word = False
    globbed = False
    quote: str | None = None
    index = 0
    while index < len(command):
        char = command[index]
        index += 1
        if quote == "'":
            if char == "'":
                quote = None
            else:
                current.append(char)
            continue
        if quote == '"':
            if char == '"':
                quote = None
            elif char in _DOUBLE_QUOTED_SYNTAX:
                raise _refuse_syntax(char)
            elif char == "\\" and index < len(command) and command[index] in '"\\':
                current.append(command[index])
                index += 1
            elif char == "\\" and index < len(command) and command[index] == "\n":
                raise _refuse_syntax("\n")
            else:
                current.append(char)
            continue
        if char in " \t":
            if in_word:
                words.append("".join(current))
                current, in_word = [], False
            continue
        if char in _UNQUOTED_SYNTAX or (char == "#" and not in_word):
            raise _refuse_syntax(char)
        in_word = True
        if char in "'\"":
            quote = char
        elif char == "\\":
            if index >= len(command) or command[index] in "\n\r":
                raise _refuse_syntax("\n")
            current.append(command[index])
            index += 1
        else:
            globbed = globbed or char in _GLOB
            current.append(char)
    if quote is not None:
        raise CommandRefused("the command has an unterminated quote")
    if in_word:
        words.append("".join(current))
    return words, globbed


def _check_length(command: str) -> None:
    if not command.strip():
        raise CommandRefused("the command is empty")
    if len(command) > MAX_COMMAND_CHARS:
        raise CommandRefused(
            f"the command is {len(command)} characters; the limit is {MAX_COMMAND_CHARS}"
        )


def read_only_git_argv(command: str) -> list[str]:
    """The argv of a read-only git command (git log/diff/show/status/ls-files/…), or refuse.

    Read-only agents may inspect history but not run anything else, so no shell syntax
    and no git option that runs programs, reads other repositories or writes files.
    """
    _check_length(command)
    argv, globbed = split_plain_command(command)
    if not argv or argv[0] != "git":
        allowed = ", ".join(sorted(READ_ONLY_GIT_SUBCOMMANDS))
        raise CommandRefused(f"read-only agents may only run git {{{allowed}}}")
    if globbed:
        raise CommandRefused(_glob_refusal("git"))
    check_git_arguments(argv)
    return argv


def check_git_arguments(argv: list[str]) -> None:
    """Refuse a git argv that is not a read-only subcommand with harmless options."""
    allowed = ", ".join(sorted(READ_ONLY_GIT_SUBCOMMANDS))
    if len(argv) < 2 or argv[1] not in READ_ONLY_GIT_SUBCOMMANDS:
        raise CommandRefused(f"read-only agents may only run git {{{allowed}}}")
    for arg in argv[2:]:
        if any(arg == opt or arg.startswith(opt + "=") for opt in _GIT_FORBIDDEN_OPTIONS):
            raise CommandRefused(f"git option '{arg}' is not allowed for read-only agents")
        if arg.startswith("--output") or _abbreviates_forbidden(arg):
            raise CommandRefused(f"git option '{arg}' is not allowed for read-only agents")
        if argv[1] == "grep" and _grep_cluster_opens_pager(arg):
            raise CommandRefused(f"git grep option '{arg}' runs a program")


def read_only_argv(command: str) -> list[str]:
    """The argv of one read-only command (ls, cat, head, tail, wc, pwd, stat, find, grep,
    rg or a read-only git subcommand), or refuse."""
    _check_length(command)
    argv, globbed = split_plain_command(command)
    if not argv:
        raise CommandRefused("the command is empty")
    program = argv[0]
    if program not in READ_ONLY_PROGRAMS:
        allowed = ", ".join(sorted(READ_ONLY_PROGRAMS))
        raise CommandRefused(
            f"read-only agents may only run {allowed} (plain names, no paths or wrappers)"
        )
    if globbed and program in _GLOB_SENSITIVE:
        raise CommandRefused(_glob_refusal(program))
    if program == "git":
        check_git_arguments(argv)
    elif program == "find":
        for arg in argv[1:]:
            if arg in _FIND_FORBIDDEN:
                raise CommandRefused(f"find action '{arg}' writes or runs a program")
    elif program == "rg":
        for arg in argv[1:]:
            name = arg.split("=", 1)[0]
            if name in _RG_FORBIDDEN or (
                arg.startswith("-") and not arg.startswith("--") and "z" in arg
            ):
                raise CommandRefused(f"rg option '{arg}' runs a program")
    return argv


def _glob_refusal(program: str) -> str:
    return (
        f"unquoted wildcards are not allowed with {program} in read-only mode (a file named "
        "like an option could be expanded into one); quote the pattern or name the paths"
    )


def _abbreviates_forbidden(arg: str) -> bool:
    """git's option parser accepts any unambiguous prefix: `--open-files=cmd` runs `cmd`."""
    name = arg.split("=", 1)[0]
    if not name.startswith("--") or len(name) < 4 or name in _GIT_LEGITIMATE_PREFIXES:
        return False
    return any(option.startswith(name) for option in _GIT_FORBIDDEN_LONG)


def _grep_cluster_opens_pager(arg: str) -> bool:
    """`-Ocmd` and `-nOcmd` make git grep run `cmd` on the matching files."""
    if not arg.startswith("-") or arg.startswith("--"):
        return False
    for flag in arg[1:]:
        if flag == "O":
            return True
        if flag in _GREP_VALUE_FLAGS:
            return False  # the rest of the word is that flag's value
    return False
