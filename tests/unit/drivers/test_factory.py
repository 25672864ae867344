"""The driver registry: five keys, environment fallback, unknown keys, custom drivers."""

from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from amelia.drivers.base import AgenticMessage, AgenticMessageType, GenerateResult
from amelia.drivers.factory import DriverFactory
from amelia.drivers.runtime import DriverEnvironment
from amelia.errors import ConfigError, DriverInputError


class EchoDriver:
    """A minimal driver a user might register."""

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs

    async def generate(
        self, prompt: str, system_prompt: str | None = None, schema: type[BaseModel] | None = None
    ) -> GenerateResult:
        return GenerateResult(output=prompt)

    async def execute_agentic(
        self,
        prompt: str,
        cwd: str,
        session_id: str | None = None,
        instructions: str | None = None,
        schema: type[BaseModel] | None = None,
    ) -> AsyncIterator[AgenticMessage]:
        yield AgenticMessage(type=AgenticMessageType.RESULT, content=prompt)


@pytest.fixture
def registry() -> Iterator[dict[str, Any]]:
    saved = dict(DriverFactory._registry)
    aware = set(DriverFactory._takes_environment)
    yield DriverFactory._registry
    DriverFactory._registry.clear()
    DriverFactory._registry.update(saved)
    DriverFactory._takes_environment.clear()
    DriverFactory._takes_environment.update(aware)


def test_the_five_builtin_keys_are_registered() -> None:
    assert set(DriverFactory.registered_keys()) >= {
        "cli:claude",
        "cli",
        "api:openai",
        "api:openrouter",
        "api",
    }


def test_default_key_is_claude(monkeypatch: pytest.MonkeyPatch) -> None:
    # AMELIA_DRIVER is the command line's fallback, read with the settings, not here.
    monkeypatch.setenv("AMELIA_DRIVER", "api:openrouter")
    assert DriverFactory.resolve_key() == "cli:claude"
    assert DriverFactory.resolve_key(key="cli") == "cli"


def test_unknown_key_lists_registered_keys() -> None:
    with pytest.raises(ConfigError, match=r"^Unknown driver key:") as caught:
        DriverFactory.get_driver(key="carrier-pigeon")
    for key in ("cli:claude", "api:openai", "api:openrouter"):
        assert key in str(caught.value)
    with pytest.raises(ConfigError, match=r"^Unknown driver key: 'nope'"):
        DriverFactory.get_driver(key="nope")


def test_an_unknown_key_is_a_value_error_as_callers_of_a_library_expect() -> None:
    with pytest.raises(ValueError, match="Unknown driver key"):
        DriverFactory.get_driver("unknown:driver")


def test_the_key_is_the_first_argument_and_may_be_named() -> None:
    from amelia.drivers.api.driver import ApiDriver
    from amelia.drivers.cli.claude import ClaudeCliDriver

    positional = DriverFactory.get_driver("api:openrouter", model="openrouter:vendor/model")
    assert isinstance(positional, ApiDriver)
    assert positional.model_name == "openrouter:vendor/model"
    named = DriverFactory.get_driver(key="api:openrouter", model="vendor/model")
    assert isinstance(named, ApiDriver) and named.model_name == "openrouter:vendor/model"
    assert isinstance(DriverFactory.get_driver(None), ClaudeCliDriver)


def test_the_environment_goes_only_to_factories_that_take_it(registry: dict[str, Any]) -> None:
    environment = DriverEnvironment(credentials={"OPENAI_API_KEY": "sk-from-settings"})
    DriverFactory.register_driver("echo", EchoDriver)
    DriverFactory.register_driver("aware", EchoDriver, takes_environment=True)
    plain = DriverFactory.get_driver(key="echo", environment=environment, model="x")
    aware = DriverFactory.get_driver(key="aware", environment=environment, model="x")
    assert isinstance(plain, EchoDriver) and plain.kwargs == {"model": "x"}
    assert isinstance(aware, EchoDriver)
    assert aware.kwargs == {"model": "x", "environment": environment}
    api = DriverFactory.get_driver(key="api:openai", environment=environment, model="gpt-x")
    assert getattr(api, "environment", None) is environment


async def test_custom_registration(registry: dict[str, Any]) -> None:
    DriverFactory.register_driver("echo", EchoDriver)
    driver = DriverFactory.get_driver(key="echo", model="x")
    assert isinstance(driver, EchoDriver)
    assert driver.kwargs == {"model": "x"}
    messages = [m async for m in driver.execute_agentic("hello", cwd=".")]
    assert messages[-1].content == "hello"


def test_empty_key_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="non-empty"):
        DriverFactory.register_driver(" ", EchoDriver)


def test_the_builtin_keys_are_exactly_the_driver_type() -> None:
    from typing import get_args

    from amelia.core.types import DriverType
    from amelia.drivers.factory import BUILTIN_DRIVERS

    assert set(BUILTIN_DRIVERS) == set(get_args(DriverType))


KEYED = DriverEnvironment(credentials={"OPENAI_API_KEY": "sk-k", "OPENROUTER_API_KEY": "sk-or-k"})


def test_no_key_is_the_default_driver_and_an_empty_key_is_refused() -> None:
    from amelia.drivers.cli.claude import ClaudeCliDriver

    assert isinstance(DriverFactory.get_driver(environment=KEYED), ClaudeCliDriver)
    for empty in ("", "  "):
        with pytest.raises(ValueError) as raised:
            DriverFactory.get_driver(empty, environment=KEYED)
        assert isinstance(raised.value, ConfigError)
        assert str(raised.value) == "Driver key must be a non-empty string"


BAD_DRIVER_ARGUMENTS: dict[str, tuple[str, dict[str, Any], str]] = {
    "model of another provider": (
        "api:openrouter",
        {"model": "openai:gpt-4o"},
        "The model 'openai:gpt-4o' is not a model of the api:openrouter driver, which runs "
        "openrouter: models (a bare name means openrouter:<name>)",
    ),
    "openrouter model on api:openai": (
        "api:openai",
        {"model": "openrouter:anthropic/claude-sonnet-4.5"},
        "The model 'openrouter:anthropic/claude-sonnet-4.5' is not a model of the api:openai "
        "driver, which runs openai: or openai-chat: models (a bare name means openai:<name>)",
    ),
    "empty model": ("api:openai", {"model": ""}, "The model name is empty"),
    "unknown provider prefix": (
        "api",
        {"model": "llama:7b"},
        "Unknown model provider prefix 'llama:' in 'llama:7b'. Supported: openai:, "
        "openai-chat:, openrouter:",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_DRIVER_ARGUMENTS))
def test_a_bad_model_is_an_input_error_with_its_exact_message(case: str) -> None:
    key, kwargs, message = BAD_DRIVER_ARGUMENTS[case]
    with pytest.raises(ValueError) as raised:
        DriverFactory.get_driver(key, environment=KEYED, **kwargs)
    assert isinstance(raised.value, DriverInputError)
    assert str(raised.value) == message


@pytest.mark.parametrize("key", ["cli:claude", "api:openai"])
async def test_both_drivers_refuse_an_empty_prompt_and_a_working_directory_that_is_none(
    key: str, tmp_path: Path
) -> None:
    driver = DriverFactory.get_driver(key, environment=KEYED)
    a_file = tmp_path / "notes.txt"
    a_file.write_text("x")
    cases = [
        (
            "go",
            str(tmp_path / "missing"),
            f"The working directory does not exist: {tmp_path}/missing",
        ),
        ("go", str(a_file), f"The working directory is not a directory: {a_file}"),
        ("", str(tmp_path), "The prompt is empty"),
        ("  \n", str(tmp_path), "The prompt is empty"),
    ]
    for prompt, cwd, message in cases:
        with pytest.raises(ValueError) as raised:
            async for _message in driver.execute_agentic(prompt=prompt, cwd=cwd):
                pass
        assert isinstance(raised.value, DriverInputError)
        assert str(raised.value) == message
