"""Which variables hold credentials: the secret inputs and secret-named variables only."""

from __future__ import annotations

import pytest

from amelia.redaction.environment import secret_values
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
        # Standard credential names whose credential word is glued on or is the last word.
        "PGPASSWORD",
        "MYSQL_PWD",
        "MYSQL_ROOT_PASSWORD",
        "REDISCLI_AUTH",
        "CI_JOB_JWT",
        "CI_JOB_JWT_V2",
        "SENTRY_DSN",
        "DATABASE_URL",
        "TEST_DATABASE_URL",
        "REDIS_URL",
        "MONGODB_URI",
        "CELERY_BROKER_URL",
        "AZURE_STORAGE_CONNECTION_STRING",
        "STRIPE_SK",
        "STRIPE_KEY",
        "DD_APP_KEY",
        "RAILS_MASTER_KEY",
        "SUPABASE_SERVICE_KEY",
        "LICENSEKEY",
        "NPMTOKEN",
        "SMTP_PASS",
        "LDAP_BIND_PW",
        "SLACK_WEBHOOK_URL",
        "HTPASSWD",
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
        # The shell's directories, a lookup key, a public key, switches and counts.
        "PWD",
        "OLDPWD",
        "TOKENIZERS_PARALLELISM",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "PGHOST",
        "PGUSER",
        "PGDATABASE",
        "PGPASSFILE",
        "MYSQL_HOST",
        "DATABASE_NAME",
        "CACHE_KEY",
        "PRIMARY_KEY",
        "STRIPE_PUBLISHABLE_KEY",
        "SSH_PUBLIC_KEY",
        "GIT_CONFIG_KEY_0",
        "JWT_ALGORITHM",
        "MONKEY",
        "HOTKEY",
    ],
)
def test_ordinary_variables_are_not(name: str) -> None:
    assert not is_secret_name(name)


def test_secret_variables_keeps_set_values_only() -> None:
    environment = {"GITHUB_TOKEN": "ghs_x", "OPENAI_API_KEY": "", "PATH": "/bin"}
    assert secret_variables(environment) == {"GITHUB_TOKEN": "ghs_x"}


RUNNER_VARIABLES = (
    "CI",
    "HOME",
    "PATH",
    "PWD",
    "OLDPWD",
    "HOSTNAME",
    "GITHUB_ACTION",
    "GITHUB_ACTION_PATH",
    "GITHUB_ACTION_REPOSITORY",
    "GITHUB_ACTIONS",
    "GITHUB_ACTOR",
    "GITHUB_ACTOR_ID",
    "GITHUB_API_URL",
    "GITHUB_BASE_REF",
    "GITHUB_ENV",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "GITHUB_GRAPHQL_URL",
    "GITHUB_HEAD_REF",
    "GITHUB_JOB",
    "GITHUB_OUTPUT",
    "GITHUB_PATH",
    "GITHUB_REF",
    "GITHUB_REF_NAME",
    "GITHUB_REF_PROTECTED",
    "GITHUB_REF_TYPE",
    "GITHUB_REPOSITORY",
    "GITHUB_REPOSITORY_ID",
    "GITHUB_REPOSITORY_OWNER",
    "GITHUB_RETENTION_DAYS",
    "GITHUB_RUN_ATTEMPT",
    "GITHUB_RUN_ID",
    "GITHUB_RUN_NUMBER",
    "GITHUB_SERVER_URL",
    "GITHUB_SHA",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_TRIGGERING_ACTOR",
    "GITHUB_WORKFLOW",
    "GITHUB_WORKFLOW_REF",
    "GITHUB_WORKFLOW_SHA",
    "GITHUB_WORKSPACE",
    "RUNNER_ARCH",
    "RUNNER_DEBUG",
    "RUNNER_ENVIRONMENT",
    "RUNNER_NAME",
    "RUNNER_OS",
    "RUNNER_TEMP",
    "RUNNER_TOOL_CACHE",
    "RUNNER_WORKSPACE",
    "ACTIONS_CACHE_URL",
    "ACTIONS_RESULTS_URL",
    "ACTIONS_RUNTIME_URL",
)


def test_no_input_default_and_no_variable_of_the_runner_is_masked() -> None:
    """A runner's step: every input of action.yml with its default, the runner's own
    variables; with the credential variables empty, nothing is a value to mask, so the
    trigger phrase, the plan directory, the working directory and every path stay."""
    inputs = runner_inputs("")
    assert inputs["INPUT_TRIGGER_PHRASE"] == "/amelia"
    environment = {**{name: f"/ordinary/{name.lower()}" for name in RUNNER_VARIABLES}, **inputs}

    assert secret_values(environment) == []
    assert [name for name in RUNNER_VARIABLES if is_secret_name(name)] == []
