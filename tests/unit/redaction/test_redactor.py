from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from amelia.redaction import Redactor, secret_values

SECRET = st.text(alphabet=st.characters(codec="utf-8"), min_size=6, max_size=30)


def test_known_token_formats_are_masked() -> None:
    samples = [
        "ghp_" + "a" * 36,
        "gho_" + "B1" * 18,
        "ghs_" + "c" * 36,
        "ghu_" + "d" * 36,
        "ghr_" + "e" * 36,
        "github_pat_11ABCDEFG0_" + "x" * 59,
        "sk-ant-api03-" + "Z" * 40,
        "sk-" + "q" * 48,
        "sk-proj-" + "w" * 40,
        "sk-or-v1-" + "0f" * 32,
        "AKIAIOSFODNN7EXAMPLE",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl",
    ]
    redactor = Redactor()
    for token in samples:
        assert redactor.redact(f"token={token} end") == "token=*** end", token


def test_pem_bearer_authorization_and_url_credentials() -> None:
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----"
    redactor = Redactor()
    assert redactor.redact(f"key:\n{pem}\nafter") == "key:\n***\nafter"
    assert redactor.redact("Authorization: Bearer abc.def-123456") == "Authorization: Bearer ***"
    assert redactor.redact("Authorization: token 0123456789abcdef") == "Authorization: token ***"
    assert (
        redactor.redact("git push https://x-access-token:s3cr3tv4lue@github.com/o/r")
        == "git push https://***@github.com/o/r"
    )


def test_exact_values_from_the_environment_are_masked() -> None:
    env = {
        "INPUT_OPENAI_API_KEY": "hunter2-value",
        "PATH": "/usr/bin",
        "MY_API_KEY": "opaque-42x",
        "INPUT_PLAN_DIR": "docs/plans",
    }
    redactor = Redactor(secrets=secret_values(env))
    assert redactor.redact("a hunter2-value b opaque-42x /usr/bin docs/plans") == (
        "a *** b *** /usr/bin docs/plans"
    )


def test_short_values_are_not_treated_as_secrets() -> None:
    assert Redactor(secrets=["abc"]).redact("abc abc") == "abc abc"


@settings(max_examples=300)
@given(st.lists(SECRET, min_size=1, max_size=4), st.lists(st.text(max_size=10), max_size=5))
def test_no_planted_secret_survives(secrets: list[str], filler: list[str]) -> None:
    text = "".join(f + s for f, s in zip(filler + [""] * len(secrets), secrets, strict=False))
    text += "".join(secrets)  # adjacent secrets
    redacted = Redactor(secrets=secrets).redact(text)
    for secret in secrets:
        assert secret not in redacted


@given(st.lists(SECRET, min_size=1, max_size=3), st.text(max_size=40))
def test_redaction_is_stable(secrets: list[str], text: str) -> None:
    redactor = Redactor(secrets=secrets)
    once = redactor.redact(text + secrets[0])
    assert redactor.redact(once) == once


def test_a_secret_learnt_at_run_time_is_masked_from_then_on() -> None:
    redactor = Redactor(secrets=["first-secret"])
    assert redactor.redact("late-token-value") == "late-token-value"
    redactor.add_secrets(["late-token-value", "short"])
    assert redactor.redact("first-secret late-token-value short") == "*** *** short"
    assert redactor.redact('{"k": "late-token-value"}') == '{"k": "***"}'


_TOKEN_PIECES = st.sampled_from(
    [
        "ghp_", "gho_", "ghs_", "github_pat_", "sk-", "sk-ant-", "sk-proj-", "AKIA", "ASIA",
        "eyJ", ".eyJ", "Bearer ", "BEARER\t", "authorization: token ", "AuthorIzation: Basic ",
        "authorızation: token ", "://", "user:pw@", "-----BEGIN RSA PRIVATE KEY-----",
        "-----END RSA PRIVATE KEY-----", "İ", "ı", "ſ", "\u212a", "Σ", "_", "-", " ", "\n",
        "0123456789abcdefXYZ", "q" * 20,
    ]
)  # fmt: skip


def _every_pattern_everywhere(text: str) -> str:
    """What masking did before the patterns were tried only on texts holding their needles."""
    from amelia.redaction.redactor import _TOKEN_PATTERNS

    while True:
        cleaned = text
        for token in _TOKEN_PATTERNS:
            cleaned = token.pattern.sub(token.replacement, cleaned)
        if cleaned == text:
            return cleaned
        text = cleaned


@settings(max_examples=400)
@example("Authorızation: token " + "q" * 20)
@example("x BEARER\t" + "q" * 20)
@example("ghs_" + "q" * 20 + "İ")
@given(st.lists(_TOKEN_PIECES | st.text(max_size=4), max_size=12).map("".join))
def test_looking_for_needles_first_masks_what_every_pattern_would(text: str) -> None:
    assert Redactor().redact(text) == _every_pattern_everywhere(text)
