"""ApiDriver with pydantic-ai's FunctionModel/TestModel: message mapping, sessions, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import BaseModel
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ThinkingPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel
from pydantic_ai.usage import RequestUsage

from amelia.drivers.api import ApiDriver
from amelia.drivers.api.driver import MAX_INSTRUCTIONS_CHARS, MAX_PROMPT_CHARS
from amelia.drivers.base import AgenticMessageType, DriverInterface
from amelia.drivers.factory import DriverFactory
from amelia.errors import DriverError, DriverInputError
from tests.unit.drivers.api.helpers import ScriptedModel, call, collect

T = AgenticMessageType


class Verdict(BaseModel):
    approved: bool
    summary: str


def test_is_a_driver_and_parses_provider_prefixes() -> None:
    assert isinstance(ApiDriver(model="openai:gpt-4o"), DriverInterface)
    assert ApiDriver(model="gpt-4o").provider == "openai"
    assert ApiDriver(model="gpt-4o").model_name == "openai:gpt-4o"
    assert ApiDriver(model="openai-chat:gpt-4o").provider == "openai-chat"
    router = ApiDriver(model="openrouter:anthropic/claude-sonnet-4")
    assert (router.provider, router.model_name) == (
        "openrouter",
        "openrouter:anthropic/claude-sonnet-4",
    )


def test_unknown_prefix_lists_supported_ones() -> None:
    with pytest.raises(DriverInputError) as caught:
        ApiDriver(model="mistral:large")
    message = str(caught.value)
    assert "'mistral:'" in message
    for prefix in ("openai:", "openai-chat:", "openrouter:"):
        assert prefix in message


def test_factory_prefixes_bare_models() -> None:
    driver = DriverFactory.get_driver(key="api:openrouter", model="vendor/model")
    assert isinstance(driver, ApiDriver)
    assert driver.model_name == "openrouter:vendor/model"


@pytest.mark.parametrize(
    ("model", "variable"),
    [
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("openai-chat:gpt-4o", "OPENAI_API_KEY"),
        ("openrouter:x/y", "OPENROUTER_API_KEY"),
    ],
)
async def test_missing_key_fails_before_any_request(
    model: str, variable: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable, raising=False)
    # A base URL nobody listens on: reaching it would be a connection error, not DriverError.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENROUTER_BASE_URL", "http://127.0.0.1:9/v1")
    driver = ApiDriver(model=model)
    with pytest.raises(DriverError, match=variable):
        await collect(driver, "hi", workdir)
    with pytest.raises(DriverError, match=variable):
        await driver.generate("hi")


@pytest.mark.parametrize(
    ("prompt", "instructions", "expected"),
    [
        ("", None, "prompt is empty"),
        ("   \n", None, "prompt is empty"),
        ("x" * (MAX_PROMPT_CHARS + 1), None, str(MAX_PROMPT_CHARS)),
        ("hi", "  ", "instructions are empty"),
        ("hi", "y" * (MAX_INSTRUCTIONS_CHARS + 1), str(MAX_INSTRUCTIONS_CHARS)),
    ],
)
async def test_input_validation(
    prompt: str, instructions: str | None, expected: str, workdir: Path
) -> None:
    scripted = ScriptedModel(["never"])
    driver = ApiDriver(model=scripted.model)
    with pytest.raises(DriverInputError, match=expected):
        await collect(driver, prompt, workdir, instructions=instructions)
    with pytest.raises(DriverInputError, match=expected):
        await driver.generate(prompt, system_prompt=instructions)
    assert scripted.seen == []


async def test_prompt_at_the_limit_is_accepted(workdir: Path) -> None:
    driver = ApiDriver(model=ScriptedModel(["ok"]).model)
    messages = await collect(driver, "x" * MAX_PROMPT_CHARS, workdir)
    assert messages[-1].content == "ok"


async def test_missing_working_directory(tmp_path: Path) -> None:
    driver = ApiDriver(model=ScriptedModel(["ok"]).model)
    with pytest.raises(DriverInputError, match="does not exist"):
        await collect(driver, "hi", tmp_path / "nope")


async def test_maps_thinking_tool_calls_results_and_result(workdir: Path) -> None:
    scripted = ScriptedModel(
        [
            ModelResponse(
                parts=[
                    ThinkingPart("pondering"),
                    TextPart("Reading the file."),
                    call("read_file", {"file_path": "hello.txt"}, "c1"),
                ],
                usage=RequestUsage(input_tokens=10, output_tokens=5),
            ),
            ModelResponse(
                parts=[TextPart("It says hello.")],
                usage=RequestUsage(input_tokens=20, output_tokens=3),
            ),
        ]
    )
    driver = ApiDriver(model=scripted.model)
    messages = await collect(driver, "What does hello.txt say?", workdir, instructions="Be brief.")
    assert [m.type for m in messages] == [
        T.THINKING,
        T.THINKING,
        T.TOOL_CALL,
        T.TOOL_RESULT,
        T.THINKING,
        T.RESULT,
    ]
    assert [m.content for m in messages[:2]] == ["pondering", "Reading the file."]
    tool_call, tool_result, _, result = messages[2:]
    assert (tool_call.tool_name, tool_call.tool_input, tool_call.tool_call_id) == (
        "read_file",
        {"file_path": "hello.txt"},
        "c1",
    )
    assert tool_result.tool_call_id == "c1" and not tool_result.is_error
    assert tool_result.tool_output == "hello world\n"
    assert result.content == "It says hello." and not result.is_error
    assert result.session_id
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (30, 8)
    assert (result.usage.num_turns, result.usage.model) == (2, "scripted")
    # The instructions reached the model.
    first_request = scripted.seen[0][0]
    assert isinstance(first_request, ModelRequest)
    assert first_request.instructions == "Be brief."


async def test_failing_tool_is_flagged_and_the_run_continues(workdir: Path) -> None:
    scripted = ScriptedModel(
        [
            ModelResponse(parts=[call("run_shell_command", {"command": "exit 3"}, "c1")]),
            ModelResponse(parts=[call("read_file", {"file_path": "../etc/passwd"}, "c2")]),
            ModelResponse(parts=[call("no_such_tool", {}, "c3")]),
            "gave up",
        ]
    )
    messages = await collect(ApiDriver(model=scripted.model), "go", workdir)
    results = [m for m in messages if m.type == T.TOOL_RESULT]
    assert [(r.tool_call_id, r.is_error) for r in results] == [
        ("c1", True),
        ("c2", True),
        ("c3", True),
    ]
    assert "exit code 3" in (results[0].tool_output or "")
    assert "outside the allowed directories" in (results[1].tool_output or "")
    assert "no_such_tool" in (results[2].tool_output or "")
    assert messages[-1].type == T.RESULT and messages[-1].content == "gave up"
    # The model saw the failure text as the tool's return.
    returns = [
        part
        for message in scripted.seen[1]
        for part in message.parts
        if isinstance(part, ToolReturnPart)
    ]
    assert "exit code 3" in returns[0].model_response_str()


async def test_session_continues_the_conversation(workdir: Path, api_home: Path) -> None:
    scripted = ScriptedModel(["first answer", "second answer"])
    driver = ApiDriver(model=scripted.model)
    first = await collect(driver, "first question", workdir)
    session_id = first[-1].session_id
    assert session_id is not None
    saved = api_home / "sessions" / f"{session_id}.json"
    assert saved.is_file()
    second = await collect(driver, "second question", workdir, session_id=session_id)
    assert second[-1].content == "second answer"
    assert second[-1].session_id == session_id
    prompts = [
        part.content
        for message in scripted.seen[1]
        for part in message.parts
        if isinstance(part, UserPromptPart)
    ]
    assert prompts == ["first question", "second question"]
    texts = [
        part.content
        for message in scripted.seen[1]
        if isinstance(message, ModelResponse)
        for part in message.parts
        if isinstance(part, TextPart)
    ]
    assert texts == ["first answer"]
    assert len(json.loads(saved.read_text())) == 4


async def test_unknown_or_invalid_session_is_refused(workdir: Path) -> None:
    driver = ApiDriver(model=ScriptedModel(["x"]).model)
    with pytest.raises(DriverError, match="Unknown session"):
        await collect(driver, "hi", workdir, session_id="abc123")
    with pytest.raises(DriverError, match="Invalid session id"):
        await collect(driver, "hi", workdir, session_id="../../etc/passwd")


async def test_schema_result_is_validated_json(workdir: Path) -> None:
    driver = ApiDriver(model=TestModel(call_tools=[]), tool_profile="read_only")
    messages = await collect(driver, "review", workdir, schema=Verdict)
    result = messages[-1]
    assert result.type == T.RESULT and not result.is_error
    verdict = Verdict.model_validate_json(result.content or "")
    assert isinstance(verdict.approved, bool)
    assert all(m.tool_name != "final_result" for m in messages)


async def test_model_http_error_ends_in_an_error_result(workdir: Path) -> None:
    def fail(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ModelHTTPError(429, "scripted", body={"message": "Rate limit reached"})

    messages = await collect(ApiDriver(model=FunctionModel(fail)), "go", workdir)
    assert len(messages) == 1
    result = messages[0]
    assert result.type == T.RESULT and result.is_error
    assert result.content == "Model API error: HTTP 429 from scripted: Rate limit reached"
    assert result.session_id is None


async def test_turn_limit_ends_in_an_error_result(workdir: Path) -> None:
    looping = ScriptedModel(
        [ModelResponse(parts=[call("list_files", {"pattern": "*"}, f"c{i}")]) for i in range(5)]
    )
    messages = await collect(ApiDriver(model=looping.model, max_turns=2), "go", workdir)
    assert messages[-1].type == T.RESULT and messages[-1].is_error
    assert "request_limit of 2" in (messages[-1].content or "")


async def test_transcript_has_one_line_per_message(workdir: Path, api_home: Path) -> None:
    driver = ApiDriver(model=ScriptedModel(["done"]).model)
    messages = await collect(driver, "go", workdir)
    path = driver.last_transcript_path
    assert path is not None and path.parent == api_home / "runs"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [line["message"]["type"] for line in lines] == [m.type.value for m in messages]
    assert lines[-1]["message"]["content"] == "done"


async def test_read_only_profile_offers_read_tools_and_git_only(workdir: Path) -> None:
    offered: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.extend(tool.name for tool in info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    await collect(ApiDriver(model=FunctionModel(answer), tool_profile="read_only"), "x", workdir)
    assert sorted(offered) == ["list_files", "read_file", "run_shell_command", "search_code"]
    offered.clear()
    await collect(ApiDriver(model=FunctionModel(answer), tool_profile="full"), "x", workdir)
    assert sorted(offered) == [
        "edit_file",
        "list_files",
        "read_file",
        "run_shell_command",
        "search_code",
        "write_file",
    ]


async def test_file_reading_profile_offers_file_tools_and_no_shell(workdir: Path) -> None:
    offered: list[str] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.extend(tool.name for tool in info.function_tools)
        return ModelResponse(parts=[TextPart("ok")])

    await collect(ApiDriver(model=FunctionModel(answer), tool_profile="read_files"), "x", workdir)
    assert sorted(offered) == ["list_files", "read_file", "search_code"]
    # A model asking for a shell anyway gets no such tool, and nothing runs.
    scripted = ScriptedModel(
        [
            ModelResponse(parts=[call("run_shell_command", {"command": "touch ran"}, "c1")]),
            "done",
        ]
    )
    messages = await collect(
        ApiDriver(model=scripted.model, tool_profile="read_files"), "go", workdir
    )
    assert not (workdir / "ran").exists()
    assert messages[-1].type == T.RESULT


async def test_read_only_shell_refuses_writes(workdir: Path) -> None:
    scripted = ScriptedModel(
        [
            ModelResponse(parts=[call("run_shell_command", {"command": "touch x"}, "c1")]),
            ModelResponse(parts=[call("write_file", {"file_path": "y", "content": "z"}, "c2")]),
            "done",
        ]
    )
    driver = ApiDriver(model=scripted.model, tool_profile="read_only")
    messages = await collect(driver, "go", workdir)
    results = [m for m in messages if m.type == T.TOOL_RESULT]
    assert [r.is_error for r in results] == [True, True]
    assert "git" in (results[0].tool_output or "")
    assert not (workdir / "x").exists() and not (workdir / "y").exists()


async def test_generate_text_and_schema() -> None:
    text_driver = ApiDriver(model=ScriptedModel(["plain answer"]).model)
    result = await text_driver.generate("q", system_prompt="sys")
    assert result.output == "plain answer"
    assert result.usage is not None and result.usage.num_turns == 1

    schema_driver = ApiDriver(model=TestModel())
    structured = await schema_driver.generate("q", schema=Verdict)
    assert isinstance(structured.output, Verdict)


async def test_generate_raises_driver_error_on_api_failure() -> None:
    def fail(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise ModelHTTPError(500, "scripted", body={"message": "boom"})

    with pytest.raises(DriverError, match="HTTP 500"):
        await ApiDriver(model=FunctionModel(fail)).generate("q")


def test_unknown_tool_profile_is_refused() -> None:
    with pytest.raises(ValueError, match="tool profile"):
        ApiDriver(model="openai:gpt-4o", tool_profile="admin")  # type: ignore[arg-type]
