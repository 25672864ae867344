"""The run's settings: built once from a mapping of the runner's variables, never os.environ."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amelia.config import driver_environment, load_settings, replaced_process_environment
from amelia.errors import ConfigError
from amelia.github.options import RetryPolicy
from amelia.pipeline.planfile import plan_path_pattern
from amelia.testing.action_inputs import runner_inputs

TOKEN = "ghs_" + "T" * 36


def runner_environment(**inputs: str) -> dict[str, str]:
    """What a runner passes a container action: every input of action.yml with its default
    (the token's expression filled in), unless set in `inputs`, plus GITHUB_*."""
    return {
        **runner_inputs(TOKEN, inputs),
        "GITHUB_REPOSITORY": "octo/app",
        "GITHUB_RUN_ID": "77",
        "GITHUB_WORKSPACE": "/github/workspace",
        "PATH": "/usr/bin:/bin",
    }


def test_the_defaults_of_action_yml_are_valid_settings(tmp_path: Path) -> None:
    environ = runner_environment()
    assert "INPUT_TRIGGER_PHRASE" in environ and "INPUT_DRY_RUN" in environ
    settings = load_settings(environ=environ, container_home=tmp_path / "absent")
    assert settings.inputs.trigger_phrase == "/amelia"
    assert settings.inputs.driver == "cli:claude"
    assert settings.github_token == TOKEN
    assert (settings.github_timeout, settings.github_throttle) == (15, True)
    assert settings.github_retry == RetryPolicy()
    assert settings.environ == environ
    assert TOKEN in settings.secret_values()


def test_the_process_environment_is_not_read_when_a_mapping_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INPUT_TRIGGER_PHRASE", "/elsewhere")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_from_the_process_environment")
    settings = load_settings(
        environ={"GITHUB_REPOSITORY": "octo/app"}, container_home=tmp_path / "no"
    )
    assert settings.inputs.trigger_phrase == "/amelia"
    assert settings.github_token is None
    assert load_settings(container_home=tmp_path / "no").inputs.trigger_phrase == "/elsewhere"


def test_the_token_input_wins_over_github_token(tmp_path: Path) -> None:
    home = tmp_path / "absent"
    both = {"INPUT_GITHUB_TOKEN": "ghs_input_token", "GITHUB_TOKEN": "ghs_job_token"}
    assert load_settings(environ=both, container_home=home).github_token == "ghs_input_token"
    only_job = {"INPUT_GITHUB_TOKEN": "", "GITHUB_TOKEN": "ghs_job_token"}
    assert load_settings(environ=only_job, container_home=home).github_token == "ghs_job_token"


def test_secrets_handed_over_apart_are_read_but_never_inherited(tmp_path: Path) -> None:
    environ = runner_environment(github_token="", anthropic_api_key="")
    secrets = {"INPUT_GITHUB_TOKEN": TOKEN, "INPUT_ANTHROPIC_API_KEY": "sk-ant-handed-over"}
    settings = load_settings(environ=environ, secrets=secrets, container_home=tmp_path / "absent")
    assert settings.github_token == TOKEN
    assert settings.model_credentials() == {"ANTHROPIC_API_KEY": "sk-ant-handed-over"}
    assert set(secrets.values()) <= set(settings.secret_values())
    assert not set(secrets.values()) & set(settings.environ.values())


def test_a_model_key_in_the_environment_wins_over_the_input(tmp_path: Path) -> None:
    environ = {
        "INPUT_ANTHROPIC_API_KEY": "sk-ant-input",
        "ANTHROPIC_API_KEY": "sk-ant-exported",
        "INPUT_OPENAI_API_KEY": "sk-openai-input",
    }
    settings = load_settings(environ=environ, container_home=tmp_path / "absent")
    assert settings.model_credentials() == {
        "ANTHROPIC_API_KEY": "sk-ant-exported",
        "OPENAI_API_KEY": "sk-openai-input",
    }


def test_scratch_paths_follow_the_container_home_else_runner_temp(tmp_path: Path) -> None:
    home = tmp_path / "github-home"
    home.mkdir()
    temp = tmp_path / "runner-temp"
    environ = {"RUNNER_TEMP": str(temp), "GITHUB_RUN_ID": "9"}
    in_container = load_settings(environ=environ, container_home=home)
    assert in_container.scratch_root == home
    assert in_container.artifacts_dir == home / "amelia-artifacts" / "9"
    assert in_container.dry_run_dir == home / "amelia-dry-run" / "9"
    assert in_container.action_home == home / "amelia"

    outside = load_settings(environ=environ, container_home=tmp_path / "absent")
    assert outside.scratch_root == temp
    chosen = {
        **environ,
        "AMELIA_ARTIFACTS_DIR": str(tmp_path / "kept"),
        "AMELIA_DRY_RUN_DIR": str(tmp_path / "dry"),
        "AMELIA_HOME": str(tmp_path / "amelia-home"),
    }
    moved = load_settings(environ=chosen, container_home=home)
    assert moved.artifacts_dir == tmp_path / "kept" / "9"
    assert moved.dry_run_dir == tmp_path / "dry"
    assert moved.action_home == tmp_path / "amelia-home"


@pytest.mark.parametrize(
    ("variables", "message"),
    [
        ({"INPUT_MAX_TURNS": "many"}, "Invalid action input: INPUT_MAX_TURNS: "),
        ({"AMELIA_GITHUB_TIMEOUT": "soon"}, "AMELIA_GITHUB_TIMEOUT must be a whole number"),
        (
            {"AMELIA_GITHUB_RETRY_MAX_ATTEMPTS": "many"},
            "invalid GitHub retry setting: AMELIA_GITHUB_RETRY_MAX_ATTEMPTS: Input should be",
        ),
        ({"GITHUB_API_URL": "notaurl"}, "Invalid runner variable: GITHUB_API_URL: Value error"),
        ({"GITHUB_SERVER_URL": "ftp://x"}, "Invalid runner variable: GITHUB_SERVER_URL: Value"),
        ({"AMELIA_DRY_RUN_DIR": "/proc/amelia-nope"}, "AMELIA_DRY_RUN_DIR: cannot create"),
        ({"AMELIA_ARTIFACTS_DIR": "/proc/amelia-nope/a"}, "AMELIA_ARTIFACTS_DIR: cannot create"),
        ({"AMELIA_HOME": "/dev/null/home"}, "AMELIA_HOME: /dev/null is not a directory"),
        (
            {"AMELIA_GIT_RETRY_ATTEMPTS": "0"},
            "Invalid amelia variable: AMELIA_GIT_RETRY_ATTEMPTS: Input should be greater",
        ),
        (
            {"AMELIA_GIT_RETRY_BACKOFF": "soon"},
            "Invalid amelia variable: AMELIA_GIT_RETRY_BACKOFF: Input should be a valid number",
        ),
        (
            {"AMELIA_GIT_RETRY_ATTEMPTS": "100000000"},
            "Invalid amelia variable: AMELIA_GIT_RETRY_ATTEMPTS: Input should be less than",
        ),
        (
            {"AMELIA_GIT_RETRY_BACKOFF": "1e308"},
            "Invalid amelia variable: AMELIA_GIT_RETRY_BACKOFF: Input should be less than",
        ),
    ],
)
def test_invalid_values_are_one_clear_configuration_error(
    tmp_path: Path, variables: dict[str, str], message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        load_settings(environ=variables, container_home=tmp_path / "absent")
    assert str(raised.value).startswith(message)


def test_gits_retries_are_amelia_variables(tmp_path: Path) -> None:
    absent = tmp_path / "absent"
    default = load_settings(environ={}, container_home=absent).git_retry
    assert (default.attempts, default.backoff) == (3, 2.0)
    environ = {"AMELIA_GIT_RETRY_ATTEMPTS": "5", "AMELIA_GIT_RETRY_BACKOFF": "0.5"}
    chosen = load_settings(environ=environ, container_home=absent).git_retry
    assert (chosen.attempts, chosen.backoff) == (5, 0.5)


def test_the_command_line_fallbacks_and_overrides_are_amelia_variables(tmp_path: Path) -> None:
    environ = {
        "AMELIA_DRIVER": "api:openai",
        "AMELIA_MODEL": "openai:gpt-x",
        "AMELIA_COMMAND": "plan",
        "AMELIA_ISSUE_NUMBER": "12",
    }
    variables = load_settings(environ=environ, container_home=tmp_path / "absent").amelia
    assert (variables.driver, variables.model) == ("api:openai", "openai:gpt-x")
    assert (variables.command, variables.issue_number) == ("plan", "12")


def test_a_blank_model_means_the_drivers_default_and_plan_dir_dot_the_top(
    tmp_path: Path,
) -> None:
    environ = runner_environment(model="  ", plan_dir="./")
    inputs = load_settings(environ=environ, container_home=tmp_path / "absent").inputs
    assert inputs.model is None
    assert inputs.plan_dir == "."
    assert plan_path_pattern(inputs.plan_dir) == "{date}-issue-{number}-{slug}.md"


def test_after_the_restart_the_redactor_masks_the_secrets_and_no_ordinary_input(
    tmp_path: Path,
) -> None:
    """As `amelia action` runs on a runner: every input of action.yml with its default in
    the environment, the secret ones handed over apart; every other input reads in clear."""
    from amelia.redaction import MASK, SECRET_INPUTS, Redactor
    from amelia.testing.action_inputs import declared_inputs

    key = "sk-ant-api03-" + "h" * 30
    passed = {**runner_environment(anthropic_api_key=key), "GITHUB_TOKEN": "ghs_" + "J" * 36}
    handed = {name: passed.pop(name) for name in [*SECRET_INPUTS, "GITHUB_TOKEN"] if name in passed}
    settings = load_settings(environ=passed, secrets=handed, container_home=tmp_path / "absent")
    redactor = Redactor(secrets=settings.secret_values())

    for value in handed.values():
        if value:
            assert redactor.redact(f"<{value}>") == f"<{MASK}>"
    ordinary = {
        name: value
        for name, value in declared_inputs().items()
        if f"INPUT_{name.upper()}" not in SECRET_INPUTS and value
    }
    assert {"trigger_phrase", "plan_dir", "branch_prefix", "driver", "review_event"} <= set(
        ordinary
    )
    for value in ordinary.values():
        text = f"new branch {value}issue-1, run `{value} plan`"
        assert redactor.redact(text) == text, value


def test_a_drivers_default_environment_holds_the_model_keys_and_passes_the_rest_on() -> None:
    environ = {
        "PATH": "/usr/bin",
        "GITHUB_TOKEN": "ghs_runnerToken000000000001",
        "INPUT_OPENAI_API_KEY": "sk-from-an-input-0000000002",
        "OPENAI_API_KEY": "sk-openai-variable-000000003",
        "OPENROUTER_BASE_URL": "http://127.0.0.1:9/api/v1",
        "ANTHROPIC_API_KEY": " ",
        "AMELIA_HOME": "/var/amelia",
    }
    environment = driver_environment(environ=environ)
    assert environment.inherited == environ  # the drivers blank its secrets
    assert environment.credentials == {
        "OPENAI_API_KEY": "sk-openai-variable-000000003",
        "OPENROUTER_BASE_URL": "http://127.0.0.1:9/api/v1",
    }
    assert environment.home == Path("/var/amelia")
    assert environment.agent is None and environment.redactor is not None
    masked = environment.redactor.redact("ghs_runnerToken000000000001 sk-from-an-input-0000000002")
    assert "runnerToken" not in masked and "from-an-input" not in masked


def test_a_missing_model_key_names_the_action_input_to_set(tmp_path: Path) -> None:
    def problem(**inputs: str) -> str | None:
        environ = {**runner_environment(**inputs), "HOME": str(tmp_path / "home")}
        settings = load_settings(environ=environ, container_home=tmp_path / "absent")
        return settings.model_key_problem(settings.inputs.driver, settings.inputs.model)

    assert problem(driver="api:openrouter") == (
        "the `openrouter_api_key` input is not set: set it from a secret "
        "(`openrouter_api_key: ${{ secrets.OPENROUTER_API_KEY }}`) to use "
        "'openrouter:openai/gpt-4o' with the api:openrouter driver"
    )
    assert problem(driver="api:openrouter", openrouter_api_key="sk-or-v1-key") is None
    assert "the `openai_api_key` input is not set" in str(
        problem(driver="api:openai", model="gpt-4.1")
    )
    assert problem(driver="cli:claude") == (
        "Claude Code has no credentials: set the `anthropic_api_key` input (an Anthropic "
        "API key) or the `claude_code_oauth_token` input (made by `claude setup-token`) from "
        "a secret"
    )
    assert problem(driver="cli:claude", anthropic_api_key="sk-ant-api03-key") is None


def test_github_addresses_of_an_enterprise_server_and_a_new_directory_are_accepted(
    tmp_path: Path,
) -> None:
    environ = {
        "GITHUB_API_URL": "https://ghe.example.com/api/v3",
        "GITHUB_SERVER_URL": "http://127.0.0.1:8080",
        "AMELIA_DRY_RUN_DIR": str(tmp_path / "new" / "dry-run"),
    }
    settings = load_settings(environ=environ, container_home=tmp_path / "absent")
    assert settings.runner.api_url == "https://ghe.example.com/api/v3"
    assert settings.dry_run_dir == tmp_path / "new" / "dry-run"
    assert not (tmp_path / "new").exists()  # reading the settings made nothing


def test_a_replaced_process_environment_is_exactly_the_given_one_and_comes_back_after_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AMELIA_BEFORE", "kept")
    before = dict(os.environ)
    with (
        pytest.raises(RuntimeError, match="inside"),
        replaced_process_environment({"AMELIA_RUN": "1", "PATH": "/bin"}),
    ):
        assert dict(os.environ) == {"AMELIA_RUN": "1", "PATH": "/bin"}
        raise RuntimeError("inside")
    assert dict(os.environ) == before
