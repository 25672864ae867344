"""The calls of the OpenRouter/OpenAI API driver design document (seed 002), as it wrote
them: `api:openrouter` among the driver types, the factory taking the key first and naming
an unknown key in a `ValueError`, provider extraction, `instructions` on `execute_agentic`,
and the key read from the environment (`monkeypatch.setenv("OPENAI_API_KEY", …)`,
`OPENROUTER_API_KEY`), against the local OpenAI-compatible server instead of the internet.

Its `messages=[AgentMessage…]` form of `execute_agentic`, `ApiStreamEvent`, the
`AgenticContext` tool context and `_validate_messages` were replaced by seed 000's
`execute_agentic(prompt, cwd, …)` yielding `AgenticMessage`, and are left out.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import pytest

from amelia.core.types import DriverType
from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.factory import DriverFactory
from amelia.testing import ScriptedOpenAIServer
from amelia.testing.openai_server import text, tool_call


def test_openrouter_is_valid_driver_type() -> None:
    valid_types: list[DriverType] = ["cli:claude", "api:openai", "api:openrouter", "cli", "api"]
    assert "api:openrouter" in valid_types


def test_factory_returns_api_driver_for_openrouter() -> None:
    driver = DriverFactory.get_driver(
        "api:openrouter", model="openrouter:anthropic/claude-3.5-sonnet"
    )
    assert isinstance(driver, ApiDriver)


def test_factory_raises_for_unknown_driver() -> None:
    with pytest.raises(ValueError, match="Unknown driver key"):
        DriverFactory.get_driver("unknown:driver")


class TestProviderExtraction:
    def test_extracts_openai_provider(self) -> None:
        driver = ApiDriver(model="openai:gpt-4o")
        assert driver.model_name == "openai:gpt-4o"
        assert driver.provider == "openai"

    def test_extracts_openrouter_provider(self) -> None:
        driver = ApiDriver(model="openrouter:anthropic/claude-3.5-sonnet")
        assert driver.model_name == "openrouter:anthropic/claude-3.5-sonnet"
        assert driver.provider == "openrouter"

    def test_defaults_to_openai_without_prefix(self) -> None:
        driver = ApiDriver(model="gpt-4o")
        assert driver.provider == "openai"


class TestInterfaceCompliance:
    def test_api_driver_accepts_instructions_parameter(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        driver = ApiDriver(model="openai:gpt-4o")
        sig = inspect.signature(driver.execute_agentic)
        assert "instructions" in sig.parameters, "execute_agentic must accept 'instructions'"
        assert "cwd" in sig.parameters, "execute_agentic must accept 'cwd'"

    def test_claude_driver_accepts_instructions_parameter(self) -> None:
        driver = ClaudeCliDriver()
        sig = inspect.signature(driver.execute_agentic)
        assert "instructions" in sig.parameters, "execute_agentic must accept 'instructions'"
        assert "cwd" in sig.parameters, "execute_agentic must accept 'cwd'"

    async def test_api_driver_uses_instructions_not_system_messages(
        self, openai_model: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        openai_model.add_turns([text("Done")])
        driver = ApiDriver(model="openai:gpt-4o")

        messages = [
            m
            async for m in driver.execute_agentic(
                prompt="test", cwd=str(tmp_path), instructions="Be helpful"
            )
        ]

        assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error
        (request,) = openai_model.requests
        assert request.body["instructions"] == "Be helpful"
        assert request.headers["authorization"] == "Bearer test-key"


@pytest.mark.parametrize(
    ("key", "model", "variable"),
    [
        ("api:openrouter", "openrouter:anthropic/claude-3.5-sonnet", "OPENROUTER_API_KEY"),
        ("api:openai", "openai:gpt-4o", "OPENAI_API_KEY"),
    ],
)
async def test_the_key_comes_from_the_environment(
    openai_model: ScriptedOpenAIServer,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    key: str,
    model: str,
    variable: str,
) -> None:
    """Seed 002's integration test, against the local server: `OPENROUTER_API_KEY` (or
    `OPENAI_API_KEY`) set, the driver from the factory, a shell command and a result."""
    monkeypatch.setenv(variable, f"{variable.lower()}-from-the-environment")
    openai_model.add_turns(
        [tool_call("run_shell_command", {"command": "echo hello"}, "c1")],
        [text("The output was hello")],
    )
    driver = DriverFactory.get_driver(key, model=model)

    events = [
        event
        async for event in driver.execute_agentic(
            prompt="Run 'echo hello' and tell me the output",
            cwd=str(tmp_path),
            instructions="You are a helpful assistant. Use tools to complete tasks.",
        )
    ]

    event_types = [e.type for e in events]
    assert AgenticMessageType.TOOL_CALL in event_types
    assert AgenticMessageType.RESULT in event_types
    assert not events[-1].is_error, events[-1].content
    (shell,) = [e for e in events if e.type == AgenticMessageType.TOOL_RESULT]
    assert (shell.tool_output or "").strip() == "hello"
    authorization = openai_model.requests[0].headers["authorization"]
    assert authorization == f"Bearer {variable.lower()}-from-the-environment"
    assert variable.lower() not in json.dumps([r.body for r in openai_model.requests])
