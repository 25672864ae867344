"""The read-only command policy both drivers share."""

from __future__ import annotations

import pytest

from amelia.drivers.read_only_policy import (
    MAX_COMMAND_CHARS,
    read_only_argv,
    read_only_git_argv,
    split_plain_command,
)
from amelia.errors import CommandRefused


@pytest.mark.parametrize(
    ("command", "argv"),
    [
        ("ls", ["ls"]),
        ("ls -la src", ["ls", "-la", "src"]),
        ("pwd", ["pwd"]),
        ("cat README.md", ["cat", "README.md"]),
        ("head -n 5 'a file.txt'", ["head", "-n", "5", "a file.txt"]),
        ("tail -20 log.txt", ["tail", "-20", "log.txt"]),
        ("wc -l src/x.py", ["wc", "-l", "src/x.py"]),
        ("stat README.md", ["stat", "README.md"]),
        ("find . -name '*.py' -type f", ["find", ".", "-name", "*.py", "-type", "f"]),
        ("grep -rn foo .", ["grep", "-rn", "foo", "."]),
        ('grep -rn "a|b; c > d" src', ["grep", "-rn", "a|b; c > d", "src"]),
        ("grep -n 'cost $5' notes", ["grep", "-n", "cost $5", "notes"]),
        ("grep -n foo src/*.py", ["grep", "-n", "foo", "src/*.py"]),
        ("rg -n 'def \\w+' src", ["rg", "-n", "def \\w+", "src"]),
        ("git log --oneline -5", ["git", "log", "--oneline", "-5"]),
        ("git diff HEAD~1 -- src", ["git", "diff", "HEAD~1", "--", "src"]),
        ("git show HEAD:README.md", ["git", "show", "HEAD:README.md"]),
        ("git grep -n -e foo", ["git", "grep", "-n", "-e", "foo"]),
        ("git grep -eO", ["git", "grep", "-eO"]),
        ("git log --format='%h %s' --text", ["git", "log", "--format=%h %s", "--text"]),
        ('git log --grep="fix \\"x\\""', ["git", "log", '--grep=fix "x"']),
        ("cat a\\ b", ["cat", "a b"]),
        ("cat ''", ["cat", ""]),
    ],
)
def test_plain_read_only_commands_pass_with_their_argv(command: str, argv: list[str]) -> None:
    assert read_only_argv(command) == argv


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("touch x", "may only run"),
        ("rm -rf .", "may only run"),
        ("/usr/bin/git log", "may only run"),
        ("env git log", "may only run"),
        ("GIT_PAGER=sh git log", "may only run"),
        ("sh -c ls", "may only run"),
        ("git log --output=leak.txt", "--output"),
        ("git diff --output x", "--output"),
        ("git show --output=/tmp/x HEAD", "--output"),
        ("git log --outp=x", "--outp"),
        ("git log --ext-diff", "--ext-diff"),
        ("git diff --textconv", "--textconv"),
        ("git log -c", "-c"),
        ("git -c core.pager=sh log", "git {"),
        ("git -C /tmp log", "git {"),
        ("git --git-dir=/x log", "git {"),
        ("git commit -m x", "git {"),
        ("git branch evil", "git {"),
        ("git push", "git {"),
        ("git", "git {"),
        ("git grep -Otouch pwned", "runs a program"),
        ("git grep -nOtouch x", "runs a program"),
        ("git grep -O 'touch p' x", "-O"),
        ("git grep --open-files-in-pager=touch x", "--open-files"),
        ("git grep --open=touch x", "--open"),
        ("git log *", "wildcards"),
        ("git diff -- src/[a]", "wildcards"),
        ("find * -name x", "wildcards"),
        ("rg foo *", "wildcards"),
        ("find . -delete", "-delete"),
        ("find . -exec touch {} ;", "shell syntax"),
        ("find . -exec touch x", "-exec"),
        ("find . -execdir rm x", "-execdir"),
        ("find . -ok rm", "-ok"),
        ("find . -fprint out", "-fprint"),
        ("find . -fprintf out %p", "-fprintf"),
        ("find . -fls out", "-fls"),
        ("rg --pre=sh foo", "runs a program"),
        ("rg --pre sh foo", "runs a program"),
        ("rg --hostname-bin=touch foo", "runs a program"),
        ("rg -z foo", "runs a program"),
        ("rg -nz foo", "runs a program"),
        ("ls; touch x", "';'"),
        ("ls && touch x", "'&'"),
        ("ls || touch x", "'|'"),
        ("ls | tee x", "'|'"),
        ("ls > x", "'>'"),
        ("cat < /etc/passwd", "'<'"),
        ("ls `touch x`", "'`'"),
        ("ls $(touch x)", "'$'"),
        ('ls "$(touch x)"', "'$'"),
        ('ls "`touch x`"', "'`'"),
        ("ls $HOME", "'$'"),
        ("ls\ntouch x", "a newline"),
        ("ls \\\ntouch x", "a newline"),
        ("ls\rtouch x", "a carriage return"),
        ("ls &", "'&'"),
        ("(ls)", "'('"),
        ("git log --{output,x}=leak", "'{'"),
        ("ls # comment", "'#'"),
        ("cat 'unterminated", "unterminated"),
        ('cat "unterminated', "unterminated"),
        ("cat x\\", "a newline"),
        ("ls " + "a" * MAX_COMMAND_CHARS, "limit"),
    ],
)
def test_anything_else_is_refused_naming_the_rule(command: str, rule: str) -> None:
    with pytest.raises(CommandRefused) as refused:
        read_only_argv(command)
    assert rule in str(refused.value)


@pytest.mark.parametrize(
    "command", ["ls", "cat README.md", "git log *", "git log | sh", "git grep -O x", "grep x ."]
)
def test_the_git_only_policy_refuses_everything_but_git(command: str) -> None:
    with pytest.raises(CommandRefused):
        read_only_git_argv(command)


def test_the_git_only_policy_keeps_quoted_arguments_whole() -> None:
    argv = read_only_git_argv("git log --grep='a; b | c' --format=\"%h %s\"")
    assert argv == ["git", "log", "--grep=a; b | c", "--format=%h %s"]


@pytest.mark.parametrize(
    ("command", "globbed"),
    [("ls *.py", True), ("ls '*.py'", False), ('ls "src/?"', False), ("ls a\\*", False)],
)
def test_only_unquoted_wildcards_count_as_globs(command: str, globbed: bool) -> None:
    assert split_plain_command(command)[1] is globbed
