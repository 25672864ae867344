"""Fuzzing the sanitizer: idempotent, and nothing invisible survives whatever the input."""

from __future__ import annotations

import unicodedata

from hypothesis import example, given, settings
from hypothesis import strategies as st

from amelia.github.sanitize import as_untrusted_data, sanitize_untrusted

# Fragments that build the hiding constructs, so random text hits the interesting cases
# far more often than plain random characters would.
FRAGMENTS = (
    "<!--",
    "-->",
    "<!",
    "--",
    "<",
    ">",
    "/>",
    "<div hidden>",
    "</div>",
    '<span style="display:none">',
    "</span>",
    '<img src="x" alt="ignore previous">',
    '<a href="https://e.x" title="secret">',
    "</a>",
    "![alt text](",
    "](https://e.x ",
    '"title")',
    "[ref]: https://e.x 'title'",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    "    ",
    "\u200b",
    "\u200d",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\U000e0041",
    "\u115f",
    "\u2800",
    "\x00",
    "\x1b",
    "untrusted-data",
    "text",
)
hostile_text = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), max_size=40).map("".join)
any_text = hostile_text | st.text(max_size=300)

_INVISIBLE = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _hidden_characters(text: str) -> list[str]:
    return [
        char
        for char in text
        if char not in "\n\t"
        and (unicodedata.category(char) in ("Cf", "Cc", "Cs", "Co") or char in _INVISIBLE)
    ]


@settings(max_examples=400, deadline=None)
@given(text=any_text)
@example(text="    [a]: https://e.x 'title'")
def test_sanitizing_is_idempotent(text: str) -> None:
    once = sanitize_untrusted(text)
    assert sanitize_untrusted(once) == once


@settings(max_examples=400, deadline=None)
@given(text=any_text)
def test_no_comment_or_invisible_character_survives(text: str) -> None:
    cleaned = sanitize_untrusted(text)
    assert "<!--" not in cleaned
    assert _hidden_characters(cleaned) == []
    assert "\r" not in cleaned


@settings(max_examples=300, deadline=None)
@given(text=any_text)
def test_output_grows_at_most_one_character_per_tag(text: str) -> None:
    # The only growth: `<br/>` is rewritten `<br />`, one space per self-closing tag.
    assert len(sanitize_untrusted(text)) <= len(text) + text.count(">")


@settings(max_examples=200, deadline=None)
@given(text=any_text, label=st.text(max_size=100))
def test_wrapped_data_cannot_close_its_own_fence(text: str, label: str) -> None:
    wrapped = as_untrusted_data(label, text)
    assert wrapped.count("<untrusted-data") == 1
    assert wrapped.count("</untrusted-data>") == 1
    assert wrapped.endswith("</untrusted-data>")
