"""A driver made without `environment=`, as a library caller makes one, is safe and works.

The calls are the design documents' own: `DriverFactory.get_driver("api:openrouter",
model=…)`, `ClaudeCliDriver()`, `execute_agentic(prompt=…, cwd=…)`. The process holds what
a runner's job holds (the token, `INPUT_*` keys, the runner's and a cloud's credentials) and
the model's key in the variable its SDK reads. The agent's own shell prints its environment:
none of those secrets is there, and the API drivers still reach their model with the key
from the environment. As root on a machine that has the image's agent user, as the image.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.factory import DriverFactory
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing import anthropic_server as anthropic
from amelia.testing import openai_server as openai
from amelia.testing.anthropic_script import Turn
from tests.image_user import ImageUser
from tests.security.conftest import HARMLESS, PLANTED_SECRETS

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

T = AgenticMessageType
PRINT_ENVIRONMENT = "env; tr '\\0' '\\n' < /proc/self/environ"
MODEL_KEY = "sk-ant-api03-the-model-key-0001"


@pytest.fixture
def machine(
    image_user: ImageUser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """This process as a runner's job step leaves it: planted secrets, a home of its own."""
    for name, value in PLANTED_SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(*HARMLESS)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("AMELIA_HOME", str(tmp_path / "amelia-home"))
    (tmp_path / "home").mkdir()
    return dict(PLANTED_SECRETS)


def shown(messages: list[AgenticMessage]) -> str:
    outputs = [m.tool_output or "" for m in messages if m.type == T.TOOL_RESULT]
    assert outputs, messages
    return "\n".join(outputs)


def assert_hidden(text: str, secrets: dict[str, str]) -> None:
    assert f"{HARMLESS[0]}={HARMLESS[1]}" in text  # the command did print the environment
    leaked = sorted(name for name, value in secrets.items() if value in text)
    assert leaked == []


async def test_a_claude_driver_from_the_factory_hands_the_cli_no_secret_of_the_process(
    machine: dict[str, str], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert os.geteuid() == 0
    one_run: list[Turn] = [
        [anthropic.tool_use("Bash", {"command": PRINT_ENVIRONMENT})],
        [anthropic.text("done")],
    ]
    with ScriptedAnthropicServer([*one_run, *one_run]) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", MODEL_KEY)
        monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
        monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
        drivers = [
            DriverFactory.get_driver("cli:claude", timeout_seconds=120),
            ClaudeCliDriver(timeout_seconds=120),
        ]
        for driver in drivers:
            messages = [m async for m in driver.execute_agentic(prompt="go", cwd=str(repo))]
            assert messages[-1].type == T.RESULT and not messages[-1].is_error, messages[-1]
            # The model key too: the CLI holds the credential proxy's per-run token.
            assert_hidden(shown(messages), {**machine, "ANTHROPIC_API_KEY": MODEL_KEY})
            assert "ANTHROPIC_BASE_URL=http://127.0.0.1:" in shown(messages)
    # The model was reached with the key from the environment, and saw no secret either.
    assert {request.headers.get("x-api-key") for request in server.requests} == {MODEL_KEY}
    assert len(server.main_requests) == 4
    seen_by_the_model = "\n".join(str(r.body) for r in server.requests)
    assert not any(value in seen_by_the_model for value in machine.values())


@pytest.mark.parametrize(
    ("key", "model", "variable"),
    [
        ("api:openrouter", "openrouter:anthropic/claude-3.5-sonnet", "OPENROUTER"),
        ("api:openai", "openai-chat:gpt-4o-mini", "OPENAI"),
    ],
)
async def test_an_api_driver_from_the_factory_takes_its_key_from_the_environment(
    machine: dict[str, str],
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    key: str,
    model: str,
    variable: str,
) -> None:
    model_key = f"sk-{variable.lower()}-key-from-the-environment-01"
    with ScriptedOpenAIServer(
        [
            [openai.tool_call("run_shell_command", {"command": PRINT_ENVIRONMENT}, "c1")],
            [openai.text("done")],
        ]
    ) as server:
        monkeypatch.setenv(f"{variable}_BASE_URL", server.url)
        monkeypatch.setenv(f"{variable}_API_KEY", model_key)
        driver = DriverFactory.get_driver(key, model=model)
        assert isinstance(driver, ApiDriver)
        messages = [m async for m in driver.execute_agentic(prompt="go", cwd=str(repo))]

    assert [m.type for m in messages][-1] == T.RESULT
    assert not messages[-1].is_error, messages[-1].content
    assert messages[-1].content == "done"
    text = shown(messages)
    assert_hidden(text, {**machine, f"{variable}_API_KEY": model_key})
    assert server.requests[0].headers.get("authorization") == f"Bearer {model_key}"
