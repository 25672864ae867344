"""Whether a built-in driver can reach its model, decided from the environment handed over."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.drivers.api import ApiDriver
from amelia.drivers.credentials import missing_credentials
from amelia.drivers.factory import DriverFactory
from amelia.drivers.runtime import DriverEnvironment


def _environment(home: Path, **variables: str) -> DriverEnvironment:
    return DriverEnvironment(inherited={"HOME": str(home), **variables})


@pytest.mark.parametrize(
    "variables",
    [
        {"ANTHROPIC_API_KEY": "sk-ant-x"},
        {"CLAUDE_CODE_OAUTH_TOKEN": "tok"},
        {"ANTHROPIC_AUTH_TOKEN": "tok"},
        {"CLAUDE_CODE_USE_BEDROCK": "1"},
    ],
)
def test_claude_code_with_a_key_or_a_cloud_can_start(
    tmp_path: Path, variables: dict[str, str]
) -> None:
    assert (
        missing_credentials(
            "cli:claude", None, _environment(tmp_path, **variables), platform="linux"
        )
        is None
    )


def test_claude_code_logged_in_or_with_a_key_helper_can_start(tmp_path: Path) -> None:
    environment = _environment(tmp_path)
    assert missing_credentials("cli", None, environment, platform="linux") is not None
    assert missing_credentials("cli", None, environment, platform="darwin") is None  # keychain
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text('{"apiKeyHelper": "pass show claude"}')
    assert missing_credentials("cli", None, environment, platform="linux") is None
    elsewhere = tmp_path / "config"
    (elsewhere).mkdir()
    (elsewhere / ".credentials.json").write_text("{}")
    moved = _environment(tmp_path / "nobody", CLAUDE_CONFIG_DIR=str(elsewhere))
    assert missing_credentials("cli:claude", None, moved, platform="linux") is None


def test_api_drivers_name_the_key_of_their_models_provider(tmp_path: Path) -> None:
    bare = _environment(tmp_path)
    assert missing_credentials("api:openrouter", "vendor/m", bare) == (
        "OPENROUTER_API_KEY is not set: set it to use 'openrouter:vendor/m' with the api driver"
    )
    assert "OPENAI_API_KEY" in str(missing_credentials("api", None, bare))
    assert "Unknown model provider prefix 'x:'" in str(missing_credentials("api", "x:m", bare))
    keyed = DriverEnvironment(credentials={"OPENROUTER_API_KEY": "k"})
    assert missing_credentials("api:openrouter", "vendor/m", keyed) is None
    assert missing_credentials("my:own", None, bare) is None  # a registered driver checks itself


def test_an_api_driver_keys_default_model_is_of_its_own_provider(tmp_path: Path) -> None:
    only_openrouter = DriverEnvironment(credentials={"OPENROUTER_API_KEY": "sk-or-v1-k"})
    assert missing_credentials("api:openrouter", None, only_openrouter) is None
    bare = _environment(tmp_path)
    assert "'openrouter:openai/gpt-4o'" in str(missing_credentials("api:openrouter", None, bare))
    for key, model in (("api:openrouter", "openrouter:openai/gpt-4o"), ("api", "openai:gpt-4o")):
        driver = DriverFactory.get_driver(key, environment=only_openrouter)
        assert isinstance(driver, ApiDriver) and driver.model_name == model
