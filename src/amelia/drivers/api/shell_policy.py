"""Which shell commands an agent may run at all.

The model chooses the commands and reads untrusted text (issues, code), so this refuses
what could damage the machine or pull in and run remote code. It is a guard rail, not a
sandbox: the process runs as the job's user in the job's filesystem.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

from amelia.drivers.read_only_policy import (
    MAX_COMMAND_CHARS,
    READ_ONLY_GIT_SUBCOMMANDS,
    read_only_git_argv,
)
from amelia.errors import CommandRefused

__all__ = [
    "BLOCKED_COMMANDS",
    "MAX_COMMAND_CHARS",
    "MAX_TIMEOUT_SECONDS",
    "PROTECTED_ROOTS",
    "READ_ONLY_GIT_SUBCOMMANDS",
    "check_command",
    "read_only_git_argv",
]

MAX_TIMEOUT_SECONDS = 300


BLOCKED_COMMANDS = frozenset(
    {
        "sudo",
        "su",
        "doas",
        "pkexec",
        "shutdown",
        "reboot",
        "halt",
        "poweroff",
        "init",
        "telinit",
        "dd",
        "mount",
        "umount",
        "systemctl",
        "service",
        "fdisk",
        "sfdisk",
        "parted",
        "mkswap",
        "swapon",
        "swapoff",
        "wipefs",
        "shred",
        "chroot",
        "insmod",
        "rmmod",
        "modprobe",
        "iptables",
        "useradd",
        "userdel",
        "usermod",
        "passwd",
        "visudo",
    }
)
"""Commands refused wherever they appear in command position (also `mkfs`, `mkfs.*`)."""

_WRAPPERS = frozenset(
    {"env", "nohup", "nice", "time", "timeout", "xargs", "command", "exec", "builtin", "stdbuf"}
)
"""Commands that run their arguments as another command."""

_SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})

PROTECTED_ROOTS = ("/etc", "/usr", "/bin", "/sbin", "/boot", "/sys", "/proc", "/lib", "/lib64")
"""System directories no command may write to."""

_RM_PROTECTED = frozenset(
    {
        "/",
        "/*",
        "~",
        "~/",
        "~/*",
        "$HOME",
        "${HOME}",
        "$HOME/",
        "$HOME/*",
        "/home",
        "/root",
        "/var",
        "/opt",
        "/dev",
        "/srv",
        "/tmp",  # noqa: S108 - refusing to delete it, not using it
        "/github",
        "/github/workspace",
        *PROTECTED_ROOTS,
    }
)

_WRITING_COMMANDS = frozenset(
    {
        "tee",
        "cp",
        "mv",
        "install",
        "ln",
        "touch",
        "truncate",
        "rm",
        "rmdir",
        "mkdir",
        "chmod",
        "chown",
        "chgrp",
        "rsync",
    }
)

_SEPARATORS = re.compile(r"\|\||&&|[;&|\n(){}`]")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "do", "while", "until", "!", "time"})
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*")

_DANGEROUS_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"\b(curl|wget|fetch)\b[^|]*\|\s*(sudo\s+)?(env\s+)?\S*\b(ba|z|da|k)?sh\b"),
        "piping a download into a shell",
    ),
    (
        re.compile(r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?\S*\b(python\d?|perl|ruby|node)\b"),
        "piping a download into an interpreter",
    ),
    (
        re.compile(r"\b(ba|z|da|k)?sh\b\s+(-\w+\s+)*(<\(|[\"']?\$\()\s*(curl|wget)\b"),
        "running a downloaded script",
    ),
    (re.compile(r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:"), "fork bomb"),
    (re.compile(r"\b(\w+)\s*\(\s*\)\s*\{[^}]*\b\1\s*\|\s*\1\s*&"), "fork bomb"),
    (re.compile(r"--no-preserve-root"), "rm --no-preserve-root"),
    (
        re.compile(r">>?\|?\s*[\"']?(" + "|".join(re.escape(r) for r in PROTECTED_ROOTS) + r")\b"),
        "redirecting output into a system directory",
    ),
    (
        re.compile(r">>?\|?\s*[\"']?/dev/(?!null\b|stdout\b|stderr\b|fd/|tty\b)"),
        "writing to a device",
    ),
    (re.compile(r"\bkill\s+(-\S+\s+)*-1\b"), "killing every process"),
)


def _is_blocked_name(word: str) -> bool:
    name = PurePosixPath(word).name
    return name in BLOCKED_COMMANDS or name == "mkfs" or name.startswith("mkfs.")


def _is_top_level_directory(target: str) -> bool:
    """`/x`, `/x/y`, `~user`, `$HOME/x`: a home or system directory rather than a project path."""
    if target.startswith(("~", "$HOME", "${HOME}")):
        return target.count("/") <= 1
    if not target.startswith("/") or target.startswith("/tmp/"):  # noqa: S108
        return False
    return len(PurePosixPath(target).parts) <= 3


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment, comments=False)
    except ValueError:
        # Unbalanced quotes (a segment cut inside a quoted string): fall back to
        # whitespace without quotes, so the checks still see every word.
        return re.sub(r"[\"']", " ", segment).split()


def _under_protected_root(word: str) -> bool:
    normalized = word.strip("\"'")
    return any(normalized == root or normalized.startswith(root + "/") for root in PROTECTED_ROOTS)


def _check_words(words: list[str], depth: int) -> None:
    # Skip leading VAR=value assignments, then unwrap `env`, `nohup`, `xargs`, …
    index = 0
    while index < len(words) and (words[index] in _KEYWORDS or _ASSIGNMENT.fullmatch(words[index])):
        index += 1
    while index < len(words) and PurePosixPath(words[index]).name in _WRAPPERS:
        index += 1
        while index < len(words) and (
            words[index].startswith("-")
            or _ASSIGNMENT.fullmatch(words[index])
            or re.fullmatch(r"\d+[smhd]?", words[index])
        ):
            index += 1
    if index >= len(words):
        return
    command = PurePosixPath(words[index]).name
    args = words[index + 1 :]
    if _is_blocked_name(words[index]):
        raise CommandRefused(f"'{command}' is not allowed")
    if command in _SHELLS and "-c" in args:
        script_index = args.index("-c") + 1
        if script_index < len(args):
            check_command(args[script_index], _depth=depth + 1)
    if command in ("rm", "rmdir"):
        recursive = any(
            a in ("-r", "-R", "--recursive") or re.fullmatch(r"-[a-zA-Z]*[rR][a-zA-Z]*", a)
            for a in args
        )
        targets = [a for a in args if not a.startswith("-")]
        for target in targets:
            if target.rstrip("/") in {t.rstrip("/") for t in _RM_PROTECTED} or target in (
                "/",
                "/*",
            ):
                raise CommandRefused(f"removing '{target}' is not allowed")
            if recursive and _is_top_level_directory(target):
                raise CommandRefused(f"removing '{target}' recursively is not allowed")
    if command in _WRITING_COMMANDS:
        for arg in args:
            if _under_protected_root(arg):
                raise CommandRefused(f"'{command}' on '{arg}' touches a system directory")
            if command in ("chown", "chmod", "chgrp") and arg.strip("\"'") in ("/", "/*"):
                raise CommandRefused(f"'{command}' on '/' is not allowed")
    if command == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args):
        for arg in args:
            if _under_protected_root(arg):
                raise CommandRefused(f"editing '{arg}' touches a system directory")


def check_command(command: str, *, _depth: int = 0) -> None:
    """Raise CommandRefused when `command` breaks the policy."""
    if not command.strip():
        raise CommandRefused("the command is empty")
    if len(command) > MAX_COMMAND_CHARS:
        raise CommandRefused(
            f"the command is {len(command)} characters; the limit is {MAX_COMMAND_CHARS}"
        )
    if _depth > 3:
        raise CommandRefused("too many nested shells")
    for pattern, reason in _DANGEROUS_PATTERNS:
        if pattern.search(command):
            raise CommandRefused(f"{reason} is not allowed")
    for segment in _SEPARATORS.split(command):
        _check_words(_words(segment), _depth)
