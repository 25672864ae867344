"""Which variables hold credentials: the secret inputs and secret-named variables only."""

from __future__ import annotations

import pytest

from amelia.redaction.names import SECRET_INPUTS, is_secret_name, secret_variables
from amelia.testing.action_inputs import runner_inputs


def test_only_the_secret_inputs_of_action_yml_are_secrets() -> None:
    variables = list(runner_inputs("ghs_token"))
    assert len(variables) > len(SECRET_INPUTS)
    assert {name for name in variables if is_secret_name(name)} == SECRET_INPUTS


@pytest.mark.parametrize(
    "name",
    [
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "CLAUDE_CODE_OAUTH_TOKEN",
        "OPENAI_API_KEY",
        "OPENROUTER_API_KEY",
        "ACTIONS_RUNTIME_TOKEN",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "NODE_AUTH_TOKEN",
        "NPM_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "MY_GITHUB_PAT",
        "DEPLOY_KEY",
        "SSH_PRIVATE_KEY",
        "DB_PASSWORD",
        "client_secret",
    ],
)
def test_secret_named_variables_are_secrets(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "HOME",
        "GITHUB_API_URL",
        "GITHUB_REPOSITORY",
        "GITHUB_EVENT_PATH",
        "RUNNER_TEMP",
        "ACTIONS_RUNTIME_URL",
        "ACTIONS_CACHE_URL",
        "GIT_AUTHOR_NAME",
        "MAX_THINKING_TOKENS",
        "CLAUDE_CODE_MAX_OUTPUT_TOKENS",
        "INPUT_TRIGGER_PHRASE",
        "INPUT_MAX_TURNS",
        "KEYBOARD_LAYOUT",
        "AMELIA_HANDOFF_FD",
    ],
)
def test_ordinary_variables_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_secret_variables_keeps_set_values_only() -> None:
    environment = {"GITHUB_TOKEN": "ghs_x", "OPENAI_API_KEY": "", "PATH": "/bin"}
    assert secret_variables(environment) == {"GITHUB_TOKEN": "ghs_x"}
