"""Text helpers every layer shares; a leaf: imports nothing from amelia."""

from __future__ import annotations

import re

__all__ = ["code_fence", "inline_code", "one_line"]

_BACKTICK_RUNS = re.compile(r"`+")


def one_line(text: str | None, *, limit: int | None = None) -> str:
    """`text` on one line, each run of whitespace a single space; cut to at most `limit`
    characters, the last one `…`, when it is longer."""
    flat = " ".join((text or "").split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - 1] + "…"


def code_fence(text: str) -> str:
    """A backtick fence longer than any run of backticks in `text`, so `text` cannot end the
    code block early (three backticks at least)."""
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(text)), default=0)
    return "`" * max(3, longest + 1)


def inline_code(text: str) -> str:
    """`text` on one line as inline code that its own backticks cannot end early."""
    flat = one_line(text)
    longest = max((len(run) for run in _BACKTICK_RUNS.findall(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if longest else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"
