"""The official anthropic client against ScriptedAnthropicServer."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator

import anthropic
import pytest
from anthropic.types import MessageParam, ToolParam

from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_server import (
    RecordedRequest,
    Turn,
    api_error,
    dropped,
    stall,
    text,
    thinking,
    tool_use,
)

BASH_TOOL: ToolParam = {
    "name": "Bash",
    "description": "Run a shell command",
    "input_schema": {"type": "object", "properties": {"command": {"type": "string"}}},
}
HELLO: list[MessageParam] = [{"role": "user", "content": "hello"}]


@pytest.fixture
def server_factory() -> Iterator[list[ScriptedAnthropicServer]]:
    servers: list[ScriptedAnthropicServer] = []
    yield servers
    for server in servers:
        server.stop()


def start(servers: list[ScriptedAnthropicServer], script: list[Turn]) -> ScriptedAnthropicServer:
    server = ScriptedAnthropicServer(script).start()
    servers.append(server)
    return server


def client(server: ScriptedAnthropicServer, timeout: float = 10.0) -> anthropic.Anthropic:
    return anthropic.Anthropic(
        base_url=server.url, api_key="sk-test", max_retries=0, timeout=timeout
    )


def test_streams_text_and_records_the_request(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [[text("Hello from the script")]])
    with client(server).messages.stream(
        model="claude-test", max_tokens=100, messages=HELLO, tools=[BASH_TOOL], system="be brief"
    ) as stream:
        deltas = list(stream.text_stream)
        final = stream.get_final_message()
    assert "".join(deltas) == "Hello from the script"
    assert len(deltas) > 1
    assert final.stop_reason == "end_turn"
    assert final.model == "claude-test"
    assert final.usage.input_tokens > 0
    [request] = server.requests
    assert request.path.startswith("/v1/messages")
    # anthropic 2.x sends the key as a bearer token; older clients and the CLI use x-api-key
    credentials = request.headers.get("authorization", "") + request.headers.get("x-api-key", "")
    assert "sk-test" in credentials
    assert request.body is not None and request.body["messages"] == HELLO
    assert request.system_text() == "be brief"
    assert request.kind == "main" and request.main_index == 0


def test_streams_a_tool_call_in_pieces(server_factory: list[ScriptedAnthropicServer]) -> None:
    command = {"command": "echo hi > made.txt; exit 3"}
    server = start(
        server_factory,
        [[text("I will run it"), tool_use("Bash", command, id="toolu_fixed")]],
    )
    partials: list[str] = []
    with client(server).messages.stream(
        model="claude-test", max_tokens=100, messages=HELLO, tools=[BASH_TOOL]
    ) as stream:
        for event in stream:
            if event.type == "input_json":
                partials.append(event.partial_json)
        final = stream.get_final_message()
    assert len(partials) >= 2
    assert json.loads("".join(partials)) == command
    assert final.stop_reason == "tool_use"
    [said, call] = final.content
    assert said.type == "text" and said.text == "I will run it"
    assert call.type == "tool_use"
    assert (call.id, call.name, call.input) == ("toolu_fixed", "Bash", command)


def test_streams_thinking_with_a_signature(server_factory: list[ScriptedAnthropicServer]) -> None:
    server = start(server_factory, [[thinking("Let me consider"), text("Answer")]])
    with client(server).messages.stream(
        model="claude-test", max_tokens=100, messages=HELLO, tools=[BASH_TOOL]
    ) as stream:
        final = stream.get_final_message()
    [thought, said] = final.content
    assert thought.type == "thinking"
    assert thought.thinking == "Let me consider"
    assert thought.signature
    assert said.type == "text" and said.text == "Answer"


def test_answers_non_streaming_requests(server_factory: list[ScriptedAnthropicServer]) -> None:
    server = start(server_factory, [[tool_use("Bash", {"command": "ls"}), text("after")]])
    message = client(server).messages.create(
        model="claude-test", max_tokens=100, messages=HELLO, tools=[BASH_TOOL]
    )
    assert message.stop_reason == "tool_use"
    assert [block.type for block in message.content] == ["tool_use", "text"]
    assert server.requests[0].body is not None
    assert "stream" not in server.requests[0].body


def test_answers_end_of_script_once_the_script_runs_out(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [[text("only turn")]])
    api = client(server)
    first = api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    second = api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    assert first.content[0].type == "text" and first.content[0].text == "only turn"
    assert second.content[0].type == "text" and second.content[0].text == "end of script"
    assert second.stop_reason == "end_turn"


def test_side_requests_do_not_consume_the_script(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [[text("main answer")]])
    api = client(server)
    title = api.messages.create(model="claude-haiku-5", max_tokens=512, messages=HELLO)
    summary = api.messages.create(model="claude-test", max_tokens=32, messages=HELLO)
    counted = api.messages.count_tokens(model="claude-test", messages=HELLO, tools=[BASH_TOOL])
    main = api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    toolless = api.messages.create(model="claude-test", max_tokens=32000, messages=HELLO)
    assert title.content[0].type == "text" and title.content[0].text == "ok"
    assert summary.content[0].type == "text" and summary.content[0].text == "ok"
    assert counted.input_tokens > 0
    assert main.content[0].type == "text" and main.content[0].text == "main answer"
    assert toolless.content[0].type == "text" and toolless.content[0].text == "end of script"
    kinds = [request.kind for request in server.requests]
    assert kinds == ["side", "side", "count_tokens", "main", "main"]
    assert [request.main_index for request in server.main_requests] == [0, 1]


@pytest.mark.parametrize(
    ("status", "error_class", "error_type"),
    [
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.InternalServerError, "overloaded_error"),
        (401, anthropic.AuthenticationError, "authentication_error"),
        (429, anthropic.RateLimitError, "rate_limit_error"),
    ],
)
def test_faults_map_to_the_clients_exceptions(
    server_factory: list[ScriptedAnthropicServer],
    status: int,
    error_class: type[anthropic.APIStatusError],
    error_type: str,
) -> None:
    server = start(server_factory, [api_error(status), [text("recovered")]])
    api = client(server)
    with pytest.raises(error_class) as raised:
        api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    assert raised.value.status_code == status
    assert isinstance(raised.value.body, dict)
    assert raised.value.body["error"]["type"] == error_type
    after = api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    assert after.content[0].type == "text" and after.content[0].text == "recovered"


def test_a_repeated_fault_meets_the_clients_retries(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [api_error(529, times=3), [text("finally")]])
    api = anthropic.Anthropic(base_url=server.url, api_key="sk-test", max_retries=1)
    with pytest.raises(anthropic.InternalServerError):
        api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    assert len(server.main_requests) == 2
    third = api.messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
    assert third.content[0].type == "text" and third.content[0].text == "finally"


def test_a_dropped_stream_raises(server_factory: list[ScriptedAnthropicServer]) -> None:
    server = start(server_factory, [dropped(text("partial"), text("never sent"))])
    with (
        pytest.raises(Exception, match=r"peer closed connection|incomplete"),
        client(server).messages.stream(
            model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL]
        ) as stream,
    ):
        stream.get_final_message()


def test_a_stall_outlasts_a_short_client_timeout(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [stall(30, then=[text("too late")])])
    with pytest.raises(anthropic.APITimeoutError):
        client(server, timeout=0.5).messages.create(
            model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL]
        )


def test_a_short_stall_is_answered(server_factory: list[ScriptedAnthropicServer]) -> None:
    server = start(server_factory, [stall(0.2, then=[text("slow but here")])])
    message = client(server).messages.create(
        model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL]
    )
    assert message.content[0].type == "text" and message.content[0].text == "slow but here"


def test_unknown_paths_answer_a_clear_404(server_factory: list[ScriptedAnthropicServer]) -> None:
    server = start(server_factory, [])
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(f"{server.url}/v1/models", timeout=10)
    assert raised.value.code == 404
    error = json.loads(raised.value.read())["error"]
    assert error["type"] == "not_found_error"
    assert "/v1/models" in error["message"]
    assert server.requests[-1].kind == "other"


def test_a_script_function_sees_the_request(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    def echo_turn(request: RecordedRequest) -> Turn:
        return [text(f"turn {request.main_index}: {len((request.body or {})['messages'])}")]

    server = ScriptedAnthropicServer(echo_turn).start()
    server_factory.append(server)
    message = client(server).messages.create(
        model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL]
    )
    assert message.content[0].type == "text" and message.content[0].text == "turn 0: 1"


def test_a_dropped_turn_leaves_a_non_streaming_request_unanswered(
    server_factory: list[ScriptedAnthropicServer],
) -> None:
    server = start(server_factory, [dropped(text("never sent"))])
    with pytest.raises(anthropic.APIConnectionError):
        client(server).messages.create(model="m", max_tokens=10, messages=HELLO, tools=[BASH_TOOL])
