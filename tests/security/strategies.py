"""Hypothesis strategies for planted secrets and the hostile text around them."""

from __future__ import annotations

import json
import string

from hypothesis import strategies as st

TOKEN_ALPHABET = string.ascii_letters + string.digits + "-_./+=~"
"""What API keys, GitHub tokens and JWTs are made of."""

PREFIXES = ("", "ghs_", "ghp_", "github_pat_", "sk-ant-api03-", "sk-proj-", "AKIA", "xoxb-")

token_secrets = st.builds(
    lambda prefix, body: prefix + body,
    st.sampled_from(PREFIXES),
    st.text(TOKEN_ALPHABET, min_size=8, max_size=48),
)
"""Secrets in the alphabets real credentials use (at least 8 characters)."""

odd_secrets = st.text(st.characters(exclude_categories=["Cs"]), min_size=8, max_size=30).filter(
    lambda s: s.strip() == s and len(set(s)) > 3
)
"""Passwords with quotes, backslashes, non-ASCII letters and punctuation."""

CONTEXT_FRAGMENTS = (
    "https://x-access-token:",
    "@github.com/o/r.git",
    "Authorization: Bearer ",
    "token=",
    '{"key": "',
    '"}',
    "\\",
    '"',
    "'",
    "`",
    "\n",
    " ",
    "=",
    "/",
    "%",
    "***",
    "<!--",
)
surrounding = st.lists(st.sampled_from(CONTEXT_FRAGMENTS) | st.text(max_size=12), max_size=6).map(
    "".join
)


@st.composite
def text_with_secrets(draw: st.DrawFn, secrets: list[str]) -> str:
    """Each secret at least once, in any order, sometimes adjacent, in hostile context."""
    pieces: list[str] = []
    order = draw(st.permutations(secrets))
    for secret in [*order, *draw(st.lists(st.sampled_from(secrets), max_size=3))]:
        pieces.append(draw(surrounding))
        pieces.append(secret)
    pieces.append(draw(surrounding))
    return "".join(pieces)


def json_escaped(secret: str) -> str:
    """How a secret looks inside a JSON string (as tool inputs are shown)."""
    return json.dumps(secret)[1:-1]


SECRET_HEAD = "SeCrEt"

marked_secrets = st.text(TOKEN_ALPHABET, min_size=10, max_size=40).map(
    lambda body: SECRET_HEAD + body
)
"""Secrets that all start with SECRET_HEAD, so a cut-off secret is still recognisable."""
