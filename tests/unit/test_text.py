"""The shared text helpers: one line of text, and a code fence nothing inside can close."""

from __future__ import annotations

from amelia.text import code_fence, one_line


def test_one_line_flattens_whitespace_and_cuts_with_an_ellipsis() -> None:
    assert one_line("  a\n\tb   c \r\n") == "a b c"
    assert one_line(None) == ""
    assert one_line("abcdef", limit=6) == "abcdef"
    assert one_line("abcdefg", limit=6) == "abcde…"


def test_code_fence_is_longer_than_every_backtick_run() -> None:
    assert code_fence("plain") == "```"
    assert code_fence("a ``` b") == "````"
    assert code_fence("````` and `") == "``````"
