"""Secrets never reach a model CLI or a tool's environment."""

from hypothesis import given
from hypothesis import strategies as st

from amelia.redaction import (
    blanking_overrides,
    is_secret_name,
    scrubbed_environment,
    secret_values,
)

PARENT = {
    "PATH": "/usr/bin",
    "HOME": "/github/home",
    "GITHUB_TOKEN": "ghs_abcdefabcdef",
    "GH_TOKEN": "gho_abcdefabcdef",
    "INPUT_OPENAI_API_KEY": "sk-proj-secret",
    "INPUT_DRIVER": "cli:claude",
    "INPUT_TRIGGER_PHRASE": "/amelia",
    "INPUT_BRANCH_PREFIX": "amelia/",
    "ACTIONS_RUNTIME_TOKEN": "runtime",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://example.invalid",
    "AWS_SECRET_ACCESS_KEY": "aws-secret",
    "ANTHROPIC_API_KEY": "sk-ant-xyz123",
    "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
    "GITHUB_REPOSITORY": "o/r",
}


def test_scrub_keeps_what_is_allowed_and_drops_secrets() -> None:
    env = scrubbed_environment(allow=["ANTHROPIC_API_KEY"], base=PARENT)
    assert env["PATH"] == "/usr/bin"
    assert env["ANTHROPIC_API_KEY"] == "sk-ant-xyz123"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:1"
    assert env["GITHUB_REPOSITORY"] == "o/r"
    # Ordinary inputs are plain text, only the secret inputs are secrets.
    assert env["INPUT_DRIVER"] == "cli:claude"
    assert env["INPUT_TRIGGER_PHRASE"] == "/amelia"
    for name in (
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "INPUT_OPENAI_API_KEY",
        "ACTIONS_RUNTIME_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
    ):
        assert name not in env


def test_tools_get_no_model_key_either() -> None:
    env = scrubbed_environment(base=PARENT)
    assert "ANTHROPIC_API_KEY" not in env
    assert "HOME" in env


def test_blanking_overrides_cover_every_secret_the_model_key_too() -> None:
    overrides = blanking_overrides(base=PARENT)
    assert overrides["GITHUB_TOKEN"] == ""
    assert overrides["INPUT_OPENAI_API_KEY"] == ""
    assert overrides["ANTHROPIC_API_KEY"] == ""
    assert "PATH" not in overrides
    assert "ANTHROPIC_BASE_URL" not in overrides
    assert "ANTHROPIC_API_KEY" not in blanking_overrides(base=PARENT, allow=["ANTHROPIC_API_KEY"])


def test_secret_values_longest_first() -> None:
    values = secret_values(base=PARENT)
    assert "ghs_abcdefabcdef" in values
    assert "/usr/bin" not in values
    assert values == sorted(values, key=len, reverse=True)


def test_secret_values_never_hold_an_ordinary_input_whatever_its_length() -> None:
    values = secret_values(base=PARENT)
    assert {"cli:claude", "/amelia", "amelia/"}.isdisjoint(values)
    assert "sk-proj-secret" in values


@given(
    st.from_regex(
        r"(?:[A-Z]{1,6}_){0,2}(TOKEN|SECRET|PASSWORD|API_KEY|AUTH_TOKEN)(?:_[A-Z]{1,6}){0,2}",
        fullmatch=True,
    )
)
def test_any_name_with_a_secret_word_is_secret(name: str) -> None:
    assert is_secret_name(name)
