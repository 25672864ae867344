"""ApiDriver through pydantic-ai's real OpenAI/OpenRouter providers against ScriptedOpenAIServer."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.runtime import DriverEnvironment
from amelia.testing import ScriptedOpenAIServer
from amelia.testing.openai_server import fault, stall, text, tool_call

pytestmark = pytest.mark.e2e

T = AgenticMessageType


@pytest.fixture
def api_workdir(tmp_path: Path) -> Path:
    root = tmp_path / "checkout"
    root.mkdir()
    (root / "app.py").write_text("GREETING = 'hello'\n")
    return root


@pytest.fixture
def openai_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        monkeypatch.setenv("AMELIA_HOME", str(tmp_path / "amelia-home"))
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai")
        monkeypatch.setenv("OPENROUTER_BASE_URL", server.url)
        monkeypatch.setenv("OPENROUTER_API_KEY", "sk-test-openrouter")
        yield server


def api_driver(**options: Any) -> ApiDriver:
    """An ApiDriver with what amelia's settings would hand it: the environment the fixture
    set up (keys, base URLs) and its AMELIA_HOME."""
    environment = DriverEnvironment(
        inherited=dict(os.environ), home=Path(os.environ["AMELIA_HOME"])
    )
    return ApiDriver(environment=environment, **options)


async def run(driver: ApiDriver, cwd: Path, prompt: str = "do the task") -> list[AgenticMessage]:
    return [m async for m in driver.execute_agentic(prompt, str(cwd), instructions="Be careful.")]


def tool_results(messages: list[AgenticMessage]) -> list[AgenticMessage]:
    return [m for m in messages if m.type == T.TOOL_RESULT]


def function_outputs(body: Any) -> list[dict[str, Any]]:
    """Tool results the Responses API request carried back to the model."""
    return [item for item in body["input"] if item.get("type") == "function_call_output"]


async def test_failing_shell_command_is_flagged_and_run_goes_on(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns(
        [text("Running the tests."), tool_call("run_shell_command", {"command": "exit 4"}, "c1")],
        [text("They failed; stopping.")],
    )
    messages = await run(api_driver(model="openai:gpt-4o", max_retries=0), api_workdir)
    (result,) = tool_results(messages)
    assert result.is_error and result.tool_call_id == "c1"
    assert "exit code 4" in (result.tool_output or "")
    assert messages[-1].type == T.RESULT and not messages[-1].is_error
    assert messages[-1].content == "They failed; stopping."
    outputs = function_outputs(openai_server.requests[1].body)
    assert outputs[0]["call_id"] == "c1" and "exit code 4" in outputs[0]["output"]


async def test_writes_outside_the_checkout_are_refused(
    openai_server: ScriptedOpenAIServer, api_workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (api_workdir / "escape").symlink_to(outside)
    openai_server.add_turns(
        [tool_call("write_file", {"file_path": "../outside.txt", "content": "pwned"}, "w1")],
        [tool_call("write_file", {"file_path": "escape/x.txt", "content": "pwned"}, "w2")],
        [tool_call("write_file", {"file_path": str(outside / "y.txt"), "content": "p"}, "w3")],
        [text("Could not write.")],
    )
    messages = await run(api_driver(model="openai:gpt-4o", max_retries=0), api_workdir)
    results = tool_results(messages)
    assert [(r.tool_call_id, r.is_error) for r in results] == [
        ("w1", True),
        ("w2", True),
        ("w3", True),
    ]
    assert all("outside the allowed directories" in (r.tool_output or "") for r in results)
    assert not (tmp_path / "outside.txt").exists()
    assert list(outside.iterdir()) == []
    assert messages[-1].type == T.RESULT and not messages[-1].is_error


async def test_edit_file_changes_the_file(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns(
        [
            tool_call(
                "edit_file",
                {"file_path": "app.py", "old_text": "'hello'", "new_text": "'bonjour'"},
                "e1",
            )
        ],
        [text("Edited.")],
    )
    messages = await run(api_driver(model="openai:gpt-4o", max_retries=0), api_workdir)
    (result,) = tool_results(messages)
    assert not result.is_error
    assert (api_workdir / "app.py").read_text() == "GREETING = 'bonjour'\n"


@pytest.mark.parametrize(
    ("model", "path"),
    [
        ("openai:gpt-4o", "/v1/responses"),
        ("openai-chat:gpt-4o", "/v1/chat/completions"),
        ("openrouter:anthropic/claude-sonnet-4", "/v1/chat/completions"),
    ],
)
async def test_each_provider_completes_a_tool_using_run(
    openai_server: ScriptedOpenAIServer, api_workdir: Path, model: str, path: str
) -> None:
    openai_server.add_turns(
        [text("Looking."), tool_call("read_file", {"file_path": "app.py"}, "r1")],
        [tool_call("write_file", {"file_path": "notes/out.md", "content": "# done\n"}, "r2")],
        [text("All done.")],
    )
    driver = api_driver(model=model, max_retries=0)
    messages = await run(driver, api_workdir, "read app.py and write notes")
    assert [m.type for m in messages] == [
        T.THINKING,
        T.TOOL_CALL,
        T.TOOL_RESULT,
        T.TOOL_CALL,
        T.TOOL_RESULT,
        T.THINKING,
        T.RESULT,
    ]
    assert messages[2].tool_output == "GREETING = 'hello'\n" and not messages[2].is_error
    assert (api_workdir / "notes" / "out.md").read_text() == "# done\n"
    final = messages[-1]
    assert final.content == "All done." and not final.is_error
    assert final.usage is not None and final.usage.num_turns == 3
    assert (final.usage.input_tokens or 0) > 0
    assert [r.path for r in openai_server.requests] == [path] * 3
    first = openai_server.requests[0]
    assert first.body["model"] == model.split(":", 1)[1]
    key = "sk-test-openrouter" if model.startswith("openrouter:") else "sk-test-openai"
    assert first.headers["authorization"] == f"Bearer {key}"
    tool_names = {
        (tool.get("name") or tool.get("function", {}).get("name")) for tool in first.body["tools"]
    }
    assert {"read_file", "write_file", "edit_file", "run_shell_command"} <= tool_names
    assert driver.last_transcript_path is not None
    lines = driver.last_transcript_path.read_text().splitlines()
    assert json.loads(lines[-1])["message"]["content"] == "All done."


async def test_session_id_continues_against_the_server(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns([text("First.")], [text("Second.")])
    driver = api_driver(model="openai-chat:gpt-4o", max_retries=0)
    first = await run(driver, api_workdir, "question one")
    session_id = first[-1].session_id
    second = [
        m
        async for m in driver.execute_agentic(
            "question two", str(api_workdir), session_id=session_id
        )
    ]
    assert second[-1].content == "Second." and second[-1].session_id == session_id
    sent = openai_server.requests[1].body["messages"]
    contents = [m.get("content") for m in sent if m["role"] in ("user", "assistant")]
    assert contents == ["question one", "First.", "question two"]


async def test_rate_limit_then_server_error_ends_in_an_error_result(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns([fault(429, "Rate limit reached")], [fault(500, "Upstream broke")])
    driver = api_driver(model="openai:gpt-4o", max_retries=1)
    messages = await run(driver, api_workdir)
    assert len(messages) == 1
    result = messages[0]
    assert result.type == T.RESULT and result.is_error
    assert result.content == "Model API error: HTTP 500 from gpt-4o: Upstream broke"
    assert len(openai_server.requests) == 2


async def test_unauthorized_key_ends_in_an_error_result(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns([fault(401, "Incorrect API key provided")])
    messages = await run(api_driver(model="openrouter:x/y", max_retries=0), api_workdir)
    assert messages[-1].is_error
    assert "HTTP 401" in (messages[-1].content or "")
    assert "Incorrect API key provided" in (messages[-1].content or "")


async def test_stalled_server_ends_in_a_timeout_result(
    openai_server: ScriptedOpenAIServer, api_workdir: Path
) -> None:
    openai_server.add_turns([stall(30), text("too late")])
    driver = api_driver(model="openai-chat:gpt-4o", max_retries=0, timeout_seconds=0.5)
    messages = await run(driver, api_workdir)
    assert messages[-1].type == T.RESULT and messages[-1].is_error
    assert "timed out" in (messages[-1].content or "").lower()
