"""Fuzzing the redactor: no planted secret value survives, whatever text surrounds it.

Assumptions, stated once: a secret is one line of at least 6 characters (shorter values
would mask ordinary words); a secret split across lines or re-encoded (base64, URL
percent-encoding) is out of scope. JSON string escaping is in scope, because tool inputs
are posted as JSON.
"""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from amelia.redaction import MASK, Redactor, secret_values
from tests.security.strategies import (
    json_escaped,
    odd_secrets,
    text_with_secrets,
    token_secrets,
)

SECRET_VARIABLES = (
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "INPUT_GITHUB_TOKEN",
    "INPUT_ANTHROPIC_API_KEY",
    "INPUT_OPENAI_API_KEY",
    "ACTIONS_RUNTIME_TOKEN",
    "AWS_SECRET_ACCESS_KEY",
)


@st.composite
def secrets_and_text(
    draw: st.DrawFn, secret: st.SearchStrategy[str] = token_secrets
) -> tuple[list[str], str]:
    secrets = draw(st.lists(secret, min_size=1, max_size=4, unique=True))
    return secrets, draw(text_with_secrets(secrets))


@settings(max_examples=200, deadline=None)
@given(case=secrets_and_text())
def test_no_token_survives_in_any_context(case: tuple[list[str], str]) -> None:
    secrets, text = case
    redacted = Redactor(secrets=secrets).redact(text)
    for secret in secrets:
        assert secret not in redacted


@settings(max_examples=150, deadline=None)
@given(case=secrets_and_text(odd_secrets))
def test_no_password_with_quotes_or_unicode_survives(case: tuple[list[str], str]) -> None:
    secrets, text = case
    redacted = Redactor(secrets=secrets).redact(text)
    for secret in secrets:
        assert secret not in redacted


@settings(max_examples=150, deadline=None)
@given(case=secrets_and_text(token_secrets | odd_secrets))
def test_no_secret_survives_json_encoding(case: tuple[list[str], str]) -> None:
    secrets, text = case
    for encoded in (json.dumps({"command": text}), json.dumps(text, ensure_ascii=False)):
        redacted = Redactor(secrets=secrets).redact(encoded)
        for secret in secrets:
            assert secret not in redacted
            assert json_escaped(secret) not in redacted


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(token_secrets, min_size=len(SECRET_VARIABLES), max_size=len(SECRET_VARIABLES)),
    data=st.data(),
)
def test_secrets_of_the_environment_are_redacted(values: list[str], data: st.DataObject) -> None:
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/root",
        **dict(zip(SECRET_VARIABLES, values, strict=True)),
    }
    text = data.draw(text_with_secrets(values))
    redacted = Redactor(secrets=secret_values(environ)).redact(text)
    for value in values:
        assert value not in redacted


@settings(max_examples=200, deadline=None)
@given(text=st.text(max_size=200), secrets=st.lists(token_secrets, max_size=3))
def test_redaction_is_stable(text: str, secrets: list[str]) -> None:
    redactor = Redactor(secrets=secrets)
    once = redactor.redact(text)
    assert redactor.redact(once) == once
    assert len(once) <= len(text) + len(MASK)


def test_overlapping_secrets_are_masked_as_one() -> None:
    redactor = Redactor(secrets=["abcdef", "defghi"])
    assert redactor.redact("x abcdefghi y") == "x *** y"
    assert redactor.redact("abcdef defghi") == "*** ***"
