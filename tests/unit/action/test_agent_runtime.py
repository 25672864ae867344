"""What the drivers of an Action run start from: the proxy's URL and token, never a key."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from amelia.action.engine._agent_runtime import agent_runtime
from amelia.config import Settings, load_settings
from amelia.errors import ConfigError
from amelia.redaction import MASK, Redactor
from amelia.testing.action_inputs import runner_inputs

TOKEN = "ghs_" + "R" * 36
MODEL_KEY = "sk-ant-api03-" + "k" * 40


def runner_settings(tmp_path: Path, **extra: str) -> Settings:
    environ = {
        **runner_inputs(TOKEN, {"anthropic_api_key": ""}),
        "GITHUB_ACTIONS": "true",
        "GITHUB_REPOSITORY": "octo/app",
        "PATH": "/usr/bin:/bin",
        "AMELIA_AGENT_USER": "none",
        **extra,
    }
    secrets = {"INPUT_ANTHROPIC_API_KEY": MODEL_KEY}
    return load_settings(environ=environ, secrets=secrets, container_home=tmp_path / "absent")


def test_agents_reach_the_model_through_the_proxy_with_a_masked_token(tmp_path: Path) -> None:
    settings = runner_settings(tmp_path)
    redactor = Redactor(secrets=settings.secret_values())

    async def inside() -> tuple[dict[str, str], Path | None, bool]:
        async with agent_runtime(settings, redactor, runs_agents=True) as environment:
            config_dir = environment.cli_config_dir
            return (
                dict(environment.credentials),
                config_dir,
                config_dir is not None and config_dir.is_dir(),
            )

    credentials, config_dir, existed = asyncio.run(inside())
    assert credentials["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert credentials["ANTHROPIC_BASE_URL"].endswith("/anthropic")
    token = credentials["ANTHROPIC_API_KEY"]
    assert token and MODEL_KEY not in credentials.values()
    assert credentials["ANTHROPIC_AUTH_TOKEN"] == credentials["CLAUDE_CODE_OAUTH_TOKEN"] == ""
    # The run's redactor learned the token the moment the proxy made it.
    assert redactor.redact(f"key {token} and {MODEL_KEY}") == f"key {MASK} and {MASK}"
    # Claude Code's session files went into a fresh directory, gone once the mode returned.
    assert existed and config_dir is not None and not config_dir.exists()
    assert not config_dir.is_relative_to(settings.action_home)


def test_a_mode_without_agents_starts_nothing(tmp_path: Path) -> None:
    settings = runner_settings(tmp_path)

    async def inside() -> tuple[dict[str, str], Path | None]:
        async with agent_runtime(settings, Redactor(), runs_agents=False) as environment:
            return dict(environment.credentials), environment.cli_config_dir

    assert asyncio.run(inside()) == ({}, None)


def test_a_base_url_the_proxy_cannot_use_is_a_config_error_naming_the_variable(
    tmp_path: Path,
) -> None:
    settings = runner_settings(tmp_path, ANTHROPIC_BASE_URL="ftp://gateway.example/x?y=1")

    async def enter() -> None:
        async with agent_runtime(settings, Redactor(), runs_agents=True):
            raise AssertionError("the runtime should not start")

    with pytest.raises(ConfigError) as raised:
        asyncio.run(enter())
    assert "ANTHROPIC_BASE_URL" in raised.value.message
    assert MODEL_KEY not in raised.value.message
