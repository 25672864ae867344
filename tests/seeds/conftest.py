"""What the design documents' own calls run against: this process's environment, as a
library user's, pointed at the local scripted model servers (never the internet)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import pytest

from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing.anthropic_script import Turn
from amelia.testing.scripted_claude import scripted_claude_environment


@pytest.fixture
def library_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME and AMELIA_HOME of the test's own, as a user's machine has."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AMELIA_HOME", str(tmp_path / "amelia-home"))
    return home


ClaudeModel = Callable[[Sequence[Turn]], ScriptedAnthropicServer]


@pytest.fixture
def claude_model(
    library_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ClaudeModel]:
    """Start the Anthropic Messages API answering `turns`, with the key and base URL in
    the variables Claude Code reads."""
    started: list[ScriptedAnthropicServer] = []

    def start(turns: Sequence[Turn]) -> ScriptedAnthropicServer:
        server = ScriptedAnthropicServer(list(turns)).start()
        started.append(server)
        environment = scripted_claude_environment(server.url, tmp_path / "claude")
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        return server

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def openai_model(
    library_home: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedOpenAIServer]:
    """The OpenAI-compatible API for both `openai:` and `openrouter:` models, the keys in
    the variables their SDKs read."""
    with ScriptedOpenAIServer() as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("OPENROUTER_BASE_URL", server.url)
        monkeypatch.setenv("OPENROUTER_API_KEY", "test-openrouter-key")
        yield server
