"""The bundled Claude Code CLI against a ScriptedAnthropicServer, in a temporary git repo."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.core.types import ToolProfileName
from amelia.drivers.base import AgenticMessage
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.scripted_claude import scripted_claude_environment
from tests.git_helpers import init_repo

DriverMaker = Callable[..., ClaudeCliDriver]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository with one commit, as an agent's working tree."""
    return init_repo(tmp_path / "repo", {"README.md": "# demo\n"})


@pytest.fixture
def amelia_home(tmp_path: Path) -> Path:
    return tmp_path / "amelia-home"


@pytest.fixture
def servers() -> Iterator[list[ScriptedAnthropicServer]]:
    started: list[ScriptedAnthropicServer] = []
    yield started
    for server in started:
        server.stop()


@pytest.fixture
def make_driver(
    tmp_path: Path, amelia_home: Path
) -> Callable[[ScriptedAnthropicServer], DriverMaker]:
    """`make_driver(server)(tool_profile=…)`: a driver wired to `server`, isolated HOME."""
    home = tmp_path / "home"
    home.mkdir()

    def for_server(server: ScriptedAnthropicServer) -> DriverMaker:
        def build(tool_profile: ToolProfileName = "full", **kwargs: Any) -> ClaudeCliDriver:
            env = {**scripted_claude_environment(server.url, home / ".claude"), "HOME": str(home)}
            kwargs.setdefault("timeout_seconds", 120)
            # What amelia's settings would hand it: this process's environment as it is now.
            kwargs.setdefault("environment", DriverEnvironment(inherited=dict(os.environ)))
            return ClaudeCliDriver(
                tool_profile=tool_profile, amelia_home=amelia_home, env=env, **kwargs
            )

        return build

    return for_server


async def collect(
    driver: ClaudeCliDriver, prompt: str, cwd: Path, **kwargs: Any
) -> list[AgenticMessage]:
    return [message async for message in driver.execute_agentic(prompt, str(cwd), **kwargs)]
