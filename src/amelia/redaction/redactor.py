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

__all__ = ["MASK", "NeedleMemory", "Redactor"]

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
    gates: tuple[re.Pattern[str], ...] = ()
    """None, or patterns one of which matches wherever `pattern` does (see
    `amelia.redaction.credentials`): tried on the text before the pattern."""


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
        _TokenPattern(shape.text, MASK, shape.needles, gates=shape.gates)
        for shape in CREDENTIAL_SHAPES
        if shape.kind != "private key"  # masked as a whole block above
    ),
)


def _needle_index() -> tuple[tuple[str, bool, int], ...]:
    """Each distinct needle once, with whether it is looked for in the lower-cased text and
    the patterns it stands for, as bits (`1 << position` in `_TOKEN_PATTERNS`)."""
    found: dict[tuple[str, bool], int] = {}
    for position, token in enumerate(_TOKEN_PATTERNS):
        for needle in token.needles:
            key = (needle, token.folded)
            found[key] = found.get(key, 0) | 1 << position
    return tuple((needle, folded, bits) for (needle, folded), bits in found.items())


_NEEDLES = _needle_index()


_Needle = tuple[str, bool, int]


def _needles_in(text: str, needles: tuple[_Needle, ...] = _NEEDLES) -> tuple[_Needle, ...]:
    """Those of `needles` (of `_NEEDLES`) that `text` holds."""
    lowered: str | None = None
    found: list[_Needle] = []
    for entry in needles:
        needle, folded, _ = entry
        if folded:
            if lowered is None:
                lowered = text.lower()
            haystack = lowered
        else:
            haystack = text
        if needle in haystack:
            found.append(entry)
    return tuple(found)


def _patterns_of(needles: tuple[_Needle, ...]) -> int:
    """The patterns of `_TOKEN_PATTERNS` that may match a text holding `needles`, as bits."""
    wanted = 0
    for _, _, bits in needles:
        wanted |= bits
    return wanted


def _mask_tokens(text: str, wanted: int) -> str:
    """`text` with every known token format of `wanted` (bits, see `_patterns_of`) masked,
    in the order of `_TOKEN_PATTERNS`.

    Only a pattern with a needle in the text can match it (every match holds one), and
    masking puts `***` in and takes nothing out around it, so it forms no needle that was
    not there before: the patterns wanted by a text stay enough for what masking makes of
    it."""
    for position, token in enumerate(_TOKEN_PATTERNS):
        if wanted >> position & 1 and _opens_a_gate(token, text):
            text = token.pattern.sub(token.replacement, text)
    return text


def _opens_a_gate(token: _TokenPattern, text: str) -> bool:
    return not token.gates or any(gate.search(text) for gate in token.gates)


_PIECE_CUT = "},"
"""Where `NeedleMemory` cuts a text: between the members of a JSON array of objects."""
_CUTS_SPLIT_NO_NEEDLE = all(
    needle.isascii() and not set(needle) & set(_PIECE_CUT) for needle, _, _ in _NEEDLES
)
"""No needle holds a character of the cut, so each of a text's needles lies inside one of
its pieces: the pieces' needles are the text's. (Lower-casing is the same piece by piece
for ASCII needles: only a final sigma looks at its neighbours, and it stays non-ASCII.)"""


class NeedleMemory:
    """Which token formats texts may hold, found piece by piece and remembered by each
    piece's exact text, for texts that repeat most of an earlier one: a model request
    resends the whole conversation so far, so only what is new in it is searched.

    A text is cut at every `},` (between the messages of a JSON request and inside them);
    the needles of its pieces are the text's (no needle holds `}` or `,`), so
    `Redactor.redact(text, needles=memory)` masks exactly what `Redactor.redact(text)`
    does: the patterns still run on the whole text, only the search for their needles is
    spared. Forgets everything once it holds more than `limit` characters."""

    def __init__(self, *, limit: int = 32 * 1024 * 1024) -> None:
        self._limit = limit
        self._known: dict[str, int] = {}
        self._size = 0

    def patterns_in(self, text: str) -> int:
        """What `_patterns_of(_needles_in(text))` gives, searching only pieces not seen
        before: all of them together first, then each for the needles found in them."""
        if not _CUTS_SPLIT_NO_NEEDLE:
            return _patterns_of(_needles_in(text))
        if self._size > self._limit:
            self._known, self._size = {}, 0
        known = self._known
        wanted = 0
        new: dict[str, None] = {}
        for piece in text.split(_PIECE_CUT):
            bits = known.get(piece)
            if bits is None:
                new[piece] = None
            else:
                wanted |= bits
        if new:
            # The new pieces joined are a text whose needles are theirs (again: no needle
            # holds the cut), so each piece holds only needles found in it.
            present = _needles_in(_PIECE_CUT.join(new))
            for piece in new:
                known[piece] = _patterns_of(_needles_in(piece, present)) if present else 0
                self._size += len(piece)
            wanted |= _patterns_of(present)
        return wanted


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

    def redact(self, text: str, *, needles: NeedleMemory | None = None) -> str:
        """`text` with every secret replaced by `***`; `needles` remembers the pieces of
        earlier texts, for a text that repeats them (the result is the same).

        Masking can join the text around a secret into another secret's value, so this
        repeats until stable; each replacement shortens the text, so it terminates.
        """
        wanted = _patterns_of(_needles_in(text)) if needles is None else needles.patterns_in(text)
        while True:
            cleaned = _mask_tokens(self._mask_values(text), wanted)
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
