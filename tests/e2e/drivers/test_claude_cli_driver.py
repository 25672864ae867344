"""ClaudeCliDriver running the bundled Claude Code CLI against a scripted Anthropic API."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import BaseModel

from amelia.drivers.base import AgenticMessage, AgenticMessageType
from amelia.drivers.cli import claude as claude_module
from amelia.drivers.cli.claude import CLI_STOP_REASON, ClaudeCliDriver
from amelia.errors import DriverError
from amelia.isolation.stopped import SentSignal, sent_to
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_server import (
    Turn,
    api_error,
    dropped,
    reply,
    stall,
    text,
    thinking,
    tool_use,
)
from tests.e2e.drivers.conftest import DriverMaker, collect

pytestmark = pytest.mark.e2e

ServerDrivers = Callable[[ScriptedAnthropicServer], DriverMaker]


def start(servers: list[ScriptedAnthropicServer], script: list[Turn]) -> ScriptedAnthropicServer:
    server = ScriptedAnthropicServer(script).start()
    servers.append(server)
    return server


def of_type(messages: list[AgenticMessage], kind: AgenticMessageType) -> list[AgenticMessage]:
    return [message for message in messages if message.type == kind]


async def test_failing_bash_call_is_an_error_flagged_result(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(
        servers,
        [
            [
                thinking("The file is needed"),
                text("I will run it"),
                tool_use("Bash", {"command": "echo hi > made.txt; exit 3"}, id="toolu_bash1"),
            ],
            [text("The command failed, as expected.")],
        ],
    )
    driver = make_driver(server)()
    messages = await collect(driver, "make the file", repo)

    kinds = [message.type for message in messages]
    assert kinds[:4] == [
        AgenticMessageType.THINKING,
        AgenticMessageType.THINKING,
        AgenticMessageType.TOOL_CALL,
        AgenticMessageType.TOOL_RESULT,
    ]
    call, result = messages[2], messages[3]
    assert (call.tool_name, call.tool_call_id) == ("Bash", "toolu_bash1")
    assert call.tool_input == {"command": "echo hi > made.txt; exit 3"}
    assert (result.tool_name, result.tool_call_id, result.is_error) == ("Bash", "toolu_bash1", True)
    final = messages[-1]
    assert final.type == AgenticMessageType.RESULT
    assert not final.is_error
    assert final.content == "The command failed, as expected."
    assert final.session_id
    assert final.usage is not None and final.usage.num_turns == 2
    assert final.usage.input_tokens
    assert (repo / "made.txt").read_text() == "hi\n"
    assert driver.last_transcript_path is not None
    lines = driver.last_transcript_path.read_text().splitlines()
    assert any(json.loads(line)["kind"] == "ResultMessage" for line in lines)
    assert not driver.last_transcript_path.is_relative_to(repo)


async def test_write_and_edit_change_files_under_the_full_profile(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    target = repo / "notes.txt"
    server = start(
        servers,
        [
            [tool_use("Write", {"file_path": str(target), "content": "first line\n"})],
            [tool_use("Read", {"file_path": str(target)})],
            [
                tool_use(
                    "Edit",
                    {"file_path": str(target), "old_string": "first", "new_string": "edited"},
                )
            ],
            [text("done")],
        ],
    )
    messages = await collect(make_driver(server)(), "write notes", repo)

    results = of_type(messages, AgenticMessageType.TOOL_RESULT)
    assert [(r.tool_name, r.is_error) for r in results] == [
        ("Write", False),
        ("Read", False),
        ("Edit", False),
    ]
    assert target.read_text() == "edited line\n"


async def test_read_only_profile_refuses_writes(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(
        servers,
        [
            [tool_use("Write", {"file_path": str(repo / "plan.txt"), "content": "x"})],
            [tool_use("Bash", {"command": "touch touched.txt"})],
            [tool_use("Bash", {"command": "git log --oneline"})],
            [text("looked around")],
        ],
    )
    driver = make_driver(server)(tool_profile="read_only")
    messages = await collect(driver, "explore", repo)

    write, touch, log = of_type(messages, AgenticMessageType.TOOL_RESULT)
    assert (write.tool_name, write.is_error) == ("Write", True)
    assert (touch.tool_name, touch.is_error) == ("Bash", True)
    assert (log.tool_name, log.is_error) == ("Bash", False)
    assert "init" in (log.tool_output or "")
    assert not (repo / "plan.txt").exists()
    assert not (repo / "touched.txt").exists()
    # What the CLI announced: exactly the profile's tools, none of the editing ones.
    assert driver.last_tools is not None
    assert sorted(driver.last_tools) == ["Bash", "Read"]
    [main] = server.main_requests[:1]
    offered = {tool["name"] for tool in (main.body or {})["tools"]}
    assert {"Bash", "Read"} <= offered
    assert not offered & {"Write", "Edit", "NotebookEdit", "WebFetch", "WebSearch"}


async def test_instructions_and_resumed_sessions_reach_the_model(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    costly = reply(text("first answer"), output_tokens=20_000)
    server = start(servers, [costly, [text("second answer")]])
    driver = make_driver(server)()
    first = await collect(
        driver, "remember the word kumquat", repo, instructions="Always answer in haiku."
    )
    session_id = first[-1].session_id
    assert session_id
    assert "Always answer in haiku." in server.main_requests[0].system_text()

    second = await collect(driver, "what was the word?", repo, session_id=session_id)
    assert second[-1].content == "second answer"
    resumed = json.dumps((server.main_requests[1].body or {})["messages"])
    assert "remember the word kumquat" in resumed
    assert "first answer" in resumed
    assert "what was the word?" in resumed
    # The CLI reports a resumed session's cost since the session began; the driver
    # reports what this run cost, so the agents' summed cost counts the first run once.
    first_cost, second_cost = first[-1].usage, second[-1].usage
    assert first_cost is not None and first_cost.cost_usd is not None
    assert second_cost is not None and second_cost.cost_usd is not None
    assert 0 < second_cost.cost_usd < first_cost.cost_usd / 10


async def test_secrets_of_the_parent_environment_stay_hidden(
    repo: Path,
    servers: list[ScriptedAnthropicServer],
    make_driver: ServerDrivers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_parentsecretvalue123")
    monkeypatch.setenv("INPUT_OPENAI_API_KEY", "sk-inputsecretvalue456")
    monkeypatch.setenv("AMELIA_HARMLESS", "visible-value")
    server = start(servers, [[tool_use("Bash", {"command": "env"})], [text("done")]])
    messages = await collect(make_driver(server)(), "show env", repo)

    [result] = of_type(messages, AgenticMessageType.TOOL_RESULT)
    output = result.tool_output or ""
    assert "visible-value" in output
    assert "ghs_parentsecretvalue123" not in output
    assert "sk-inputsecretvalue456" not in output
    assert os.environ["GITHUB_TOKEN"] == "ghs_parentsecretvalue123"


@pytest.mark.parametrize(
    ("status", "cause"),
    [(529, "529"), (401, "401"), (429, "429"), (404, "claude-nope")],
)
async def test_api_errors_end_in_an_error_result_naming_the_cause(
    repo: Path,
    servers: list[ScriptedAnthropicServer],
    make_driver: ServerDrivers,
    status: int,
    cause: str,
) -> None:
    server = start(servers, [api_error(status, "model: claude-nope", times=None)])
    driver = make_driver(server)(timeout_seconds=90, model="claude-nope")
    messages = await collect(driver, "hello", repo)

    final = messages[-1]
    assert final.type == AgenticMessageType.RESULT
    assert final.is_error
    assert final.content is not None and cause in final.content
    assert "\n" not in final.content
    assert of_type(messages, AgenticMessageType.THINKING) == []


async def test_max_turns_reached_is_an_error_result(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(
        servers,
        [[tool_use("Bash", {"command": "ls"})], [tool_use("Bash", {"command": "ls"})]],
    )
    messages = await collect(make_driver(server)(max_turns=1), "loop", repo)
    final = messages[-1]
    assert final.is_error
    assert final.content is not None and "maximum number of turns" in final.content


class SteppedClock:
    """The driver's clock (`time.monotonic`), moved on by the test: the run's time limit
    passes exactly when the test says, however long a loaded machine takes to get there."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.skipped


async def test_a_stalled_run_times_out_and_keeps_its_transcript(
    repo: Path,
    servers: list[ScriptedAnthropicServer],
    make_driver: ServerDrivers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server = start(
        servers,
        [[text("working on it"), tool_use("Bash", {"command": "ls"})], stall(600)],
    )
    clock = SteppedClock()
    monkeypatch.setattr(claude_module, "time", clock)
    driver = make_driver(server)(timeout_seconds=300)
    messages: list[AgenticMessage] = []
    async for message in driver.execute_agentic("slow work", str(repo)):
        messages.append(message)
        if message.type == AgenticMessageType.TOOL_RESULT:
            # The tool ran; the model's next answer stalls. The time limit passes now.
            clock.skipped += 300

    final = messages[-1]
    assert final.type == AgenticMessageType.RESULT and final.is_error
    assert final.content is not None and "timed out after 300 s" in final.content
    assert of_type(messages, AgenticMessageType.TOOL_RESULT)
    assert driver.last_transcript_path is not None
    kinds = [
        json.loads(line)["kind"] for line in driver.last_transcript_path.read_text().splitlines()
    ]
    assert "AssistantMessage" in kinds
    assert kinds[-1] == "driver_error"


async def test_a_run_stopped_during_a_tool_call_stops_its_cli_itself(
    repo: Path,
    servers: list[ScriptedAnthropicServer],
    make_driver: ServerDrivers,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A cancelled job or the time limit stops a run whose CLI is busy with a command: the
    driver sends the CLI SIGTERM itself, rather than leaving it to end on its closed input,
    which a CLI in the middle of a tool call does not do (the SDK waits 5 s for that)."""
    marker = repo / "working"
    command = f"touch {marker}; sleep 120"
    server = start(servers, [[tool_use("Bash", {"command": command, "timeout": 300000})]])
    pids: list[int | None] = []
    recorded_pid = claude_module._recorded_pid

    def remember(pid_file: Path) -> int | None:
        pid = recorded_pid(pid_file)
        pids.append(pid)
        return pid

    monkeypatch.setattr(claude_module, "_recorded_pid", remember)
    driver = make_driver(server)()
    run = asyncio.create_task(collect(driver, "wait", repo))
    while not marker.exists() and not run.done():
        await asyncio.sleep(0.05)

    run.cancel()
    await asyncio.gather(run, return_exceptions=True)

    assert run.cancelled()
    (pid,) = pids
    assert pid is not None
    assert sent_to(pid) == SentSignal(signal=signal.SIGTERM, reason=CLI_STOP_REASON)
    assert not Path(f"/proc/{pid}").exists()  # ended and reaped
    assert driver.last_transcript_path is not None
    last = driver.last_transcript_path.read_text().splitlines()[-1]
    assert json.loads(last)["kind"] == "driver_stopped"


class Verdict(BaseModel):
    approved: bool
    summary: str


async def test_generate_returns_a_validated_instance(
    servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    answer = {"approved": True, "summary": "looks good"}
    server = start(
        servers,
        [[tool_use("StructuredOutput", answer)], [text("submitted")]],
    )
    result = await make_driver(server)().generate("review this", schema=Verdict)
    assert result.output == Verdict(approved=True, summary="looks good")
    assert result.session_id


async def test_generate_returns_text(
    servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(servers, [[text("a plain answer")]])
    result = await make_driver(server)().generate("say it", system_prompt="You are terse.")
    assert result.output == "a plain answer"
    [request] = server.main_requests
    assert "You are terse." in request.system_text()
    assert not (request.body or {}).get("tools")


@pytest.mark.parametrize(
    "turn",
    [
        # The model answers in text: the driver parses the fenced block and validates it.
        [text('```json\n{"approved": "maybe"}\n```')],
        # The model keeps calling StructuredOutput wrongly until the CLI gives up.
        [tool_use("StructuredOutput", {"approved": "maybe"})],
    ],
)
async def test_generate_rejects_an_answer_that_does_not_fit_the_schema(
    servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers, turn: Turn
) -> None:
    server = ScriptedAnthropicServer(lambda request: turn)
    servers.append(server.start())
    with pytest.raises(DriverError, match="schema Verdict"):
        await make_driver(server)().generate("review this", schema=Verdict)


async def test_web_tools_exist_only_when_asked_for(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(servers, [[text("one")], [text("two")]])
    plain = make_driver(server)(tool_profile="read_only")
    await collect(plain, "hi", repo)
    web = make_driver(server)(tool_profile="read_only", web_tools=True)
    await collect(web, "hi", repo)
    assert plain.last_tools is not None and web.last_tools is not None
    assert not {"WebFetch", "WebSearch"} & set(plain.last_tools)
    assert {"WebFetch", "WebSearch"} <= set(web.last_tools)


async def test_a_cli_that_dies_yields_an_error_result_with_its_stderr(
    repo: Path, tmp_path: Path, amelia_home: Path
) -> None:
    fake_cli = tmp_path / "claude"
    fake_cli.write_text("#!/bin/sh\necho 'fatal: settings file is corrupt' >&2\nexit 2\n")
    fake_cli.chmod(0o755)
    driver = ClaudeCliDriver(cli_path=fake_cli, amelia_home=amelia_home, timeout_seconds=60)
    messages = await collect(driver, "hello", repo)
    [final] = messages
    assert final.type == AgenticMessageType.RESULT and final.is_error
    assert final.content is not None and "settings file is corrupt" in final.content


async def test_a_missing_cli_is_a_driver_error(repo: Path, tmp_path: Path) -> None:
    driver = ClaudeCliDriver(cli_path=tmp_path / "no-such-claude", amelia_home=tmp_path)
    with pytest.raises(DriverError, match="not found"):
        await collect(driver, "hello", repo)


async def test_the_cli_recovers_from_a_dropped_stream(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    server = start(servers, [dropped(text("cut"), text("off")), [text("second try")]])
    messages = await collect(make_driver(server)(), "hello", repo)
    final = messages[-1]
    assert (final.is_error, final.content) == (False, "second try")
    # The cut reply was streamed; whether Claude Code streams its retry as well is its own
    # choice (under load it sometimes does), so only the retry itself is checked.
    streamed = [(request.body or {}).get("stream", False) for request in server.main_requests]
    assert len(streamed) == 2 and streamed[0] is True


async def test_an_agentic_run_with_a_schema_returns_its_structured_output_as_json(
    repo: Path, servers: list[ScriptedAnthropicServer], make_driver: ServerDrivers
) -> None:
    answer = {"approved": False, "summary": "needs tests"}
    server = start(
        servers,
        [
            [tool_use("Bash", {"command": "git status"})],
            [tool_use("StructuredOutput", answer)],
            [text("submitted")],
        ],
    )
    messages = await collect(make_driver(server)(), "review", repo, schema=Verdict)
    final = messages[-1]
    assert not final.is_error
    assert Verdict.model_validate_json(final.content or "") == Verdict(**answer)
