"""Replace credentials with `***` in anything we post or log: tool output, errors, comments.

The values of the run's secrets, a few shapes of their own (a bearer token, credentials in
a URL, a JWT, a private key as a block), and every shape of
`amelia.redaction.credentials`, the list the git layer flags and masks too."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import NamedTuple

from amelia.redaction.credentials import CREDENTIAL_SHAPES, PRIVATE_KEY_BLOCK

__all__ = ["MASK", "Redactor"]

MASK = "***"


class _TokenPattern(NamedTuple):
    """A known token format and what replaces it."""

    pattern: re.Pattern[str]
    replacement: str
    needles: tuple[str, ...]
    """Every match contains one of these (in the lower-cased text when `folded`), so a text
    without any cannot match: `in` finds them in a fraction of the time a search for a
    pattern that starts with `\\b` takes, which the regex engine tries at every position."""
    folded: bool = False


_TOKEN_PATTERNS: tuple[_TokenPattern, ...] = (
    _TokenPattern(re.compile(PRIVATE_KEY_BLOCK, re.DOTALL), MASK, ("-----BEGIN ",)),
    _TokenPattern(re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}"), MASK, ("github_pat_",)),
    _TokenPattern(
        re.compile(r"\bgh[pousr]_[A-Za-z0-9]{20,}"), MASK, ("ghp_", "gho_", "ghu_", "ghs_", "ghr_")
    ),
    _TokenPattern(re.compile(r"\bsk-ant-[A-Za-z0-9_-]{10,}"), MASK, ("sk-ant-",)),
    _TokenPattern(
        re.compile(r"\bsk-(?:proj-|or-v1-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}"), MASK, ("sk-",)
    ),
    _TokenPattern(re.compile(r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b"), MASK, ("AKIA", "ASIA")),
    _TokenPattern(
        re.compile(
            r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,}+\.eyJ[A-Za-z0-9_-]{4,}+\.[A-Za-z0-9_-]*"
        ),
        MASK,
        ("eyJ",),
    ),
    _TokenPattern(
        re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
        rf"\g<1>{MASK}",
        ("bearer",),
        folded=True,
    ),
    # "author", not "authorization": ignoring case, the regex engine also matches "i" with
    # a dotless "ı", which lower-casing leaves as it is.
    _TokenPattern(
        re.compile(r"(?i)\b(authorization:\s*(?:token|basic)\s+)[A-Za-z0-9._~+/=-]{8,}"),
        rf"\g<1>{MASK}",
        ("author",),
        folded=True,
    ),
    _TokenPattern(re.compile(r"(://)[^/\s:@]+:[^/\s@]+@"), rf"\g<1>{MASK}@", ("://",)),
    # Every shape the git layer flags in a push and masks in what it saves.
    *(
        _TokenPattern(shape.text, MASK, shape.needles)
        for shape in CREDENTIAL_SHAPES
        if shape.kind != "private key"  # masked as a whole block above
    ),
)


def _needle_index() -> tuple[tuple[str, bool, tuple[int, ...]], ...]:
    """Each distinct needle once, with whether it is looked for in the lower-cased text and
    the positions in `_TOKEN_PATTERNS` of the patterns it stands for."""
    found: dict[tuple[str, bool], list[int]] = {}
    for position, token in enumerate(_TOKEN_PATTERNS):
        for needle in token.needles:
            found.setdefault((needle, token.folded), []).append(position)
    return tuple((needle, folded, tuple(at)) for (needle, folded), at in found.items())


_NEEDLES = _needle_index()


def _mask_tokens(text: str) -> str:
    """`text` with every known token format masked, in the order of `_TOKEN_PATTERNS`.

    A pattern runs only when one of its needles is in the text: masking puts `***` in and
    takes nothing out around it, so it forms no needle that was not there before."""
    lowered: str | None = None
    wanted = [False] * len(_TOKEN_PATTERNS)
    for needle, folded, positions in _NEEDLES:
        if folded:
            if lowered is None:
                lowered = text.lower()
            haystack = lowered
        else:
            haystack = text
        if needle in haystack:
            for position in positions:
                wanted[position] = True
    for token, run in zip(_TOKEN_PATTERNS, wanted, strict=True):
        if run:
            text = token.pattern.sub(token.replacement, text)
    return text


def _json_escaped(secret: str, ascii_only: bool) -> str:
    return json.dumps(secret, ensure_ascii=ascii_only)[1:-1]


class Redactor:
    """Masks known token formats and the exact values of the given secrets."""

    def __init__(self, *, secrets: Iterable[str] = (), min_length: int = 6) -> None:
        self._min_length = min_length
        self._secrets: set[str] = set()
        self._spellings: tuple[str, ...] = ()
        self.add_secrets(secrets)

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Mask these values too from now on (e.g. a per-run token made after start)."""
        self._secrets |= {s for s in secrets if len(s) >= self._min_length}
        # Tool inputs are posted as JSON, where a quote, backslash, control character or
        # non-ASCII letter of a secret is escaped: mask those spellings too.
        spellings = self._secrets | {
            _json_escaped(s, ascii_only) for s in self._secrets for ascii_only in (True, False)
        }
        self._spellings = tuple(sorted(spellings, key=len, reverse=True))

    def redact_json(self, text: str) -> str:
        """`text`, one JSON document, with every secret masked, still valid JSON.

        Masking the text itself keeps its layout and is all it takes when no pattern
        reaches across a string's closing quote; otherwise every string of the parsed
        document is masked on its own and the document written anew."""
        cleaned = self.redact(text)
        if cleaned == text:
            return text
        try:
            json.loads(cleaned)
        except ValueError:
            return json.dumps(self._redact_tree(json.loads(text)), ensure_ascii=False)
        return cleaned

    def _redact_tree(self, value: object) -> object:
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, list):
            return [self._redact_tree(item) for item in value]
        if isinstance(value, dict):
            return {self.redact(str(k)): self._redact_tree(v) for k, v in value.items()}
        return value

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by `***`.

        Masking can join the text around a secret into another secret's value, so this
        repeats until stable; each replacement shortens the text, so it terminates.
        """
        while True:
            cleaned = _mask_tokens(self._mask_values(text))
            if cleaned == text:
                return cleaned
            text = cleaned

    def _mask_values(self, text: str) -> str:
        """Mask every occurrence of every secret, overlapping ones included.

        A regex alternation would consume the first match and leave the tail of a secret
        that overlaps it (`abcdef` and `defghi` in `abcdefghi`) in plain sight.
        """
        if not self._spellings:
            return text
        covered = bytearray(len(text))
        for value in self._spellings:
            ones = b"\x01" * len(value)
            start = text.find(value)
            while start != -1:
                covered[start : start + len(value)] = ones
                start = text.find(value, start + 1)
        pieces: list[str] = []
        position = 0
        while (start := covered.find(1, position)) != -1:
            end = covered.find(0, start)
            end = len(text) if end == -1 else end
            pieces += [text[position:start], MASK]
            position = end
        pieces.append(text[position:])
        return "".join(pieces)
