"""The scripted OpenAI server, exercised by the official `openai` client."""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest
from openai.types.chat import ChatCompletionMessageParam

from amelia.testing import ScriptedOpenAIServer
from amelia.testing.openai_server import (
    END_OF_SCRIPT,
    RecordedRequest,
    Turn,
    drop_connection,
    fault,
    stall,
    text,
    tool_call,
)

USER: list[ChatCompletionMessageParam] = [{"role": "user", "content": "hi"}]


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as running:
        yield running


def client(server: ScriptedOpenAIServer, timeout: float = 10.0) -> openai.OpenAI:
    return openai.OpenAI(base_url=server.url, api_key="sk-test", max_retries=0, timeout=timeout)


def test_url_is_local_and_ends_in_v1(server: ScriptedOpenAIServer) -> None:
    assert server.url == f"http://127.0.0.1:{server.port}/v1"


def test_chat_text_with_usage(server: ScriptedOpenAIServer) -> None:
    server.add_turns([text("hello there")])
    reply = client(server).chat.completions.create(model="gpt-x", messages=USER)
    assert reply.choices[0].message.content == "hello there"
    assert reply.choices[0].finish_reason == "stop"
    assert reply.model == "gpt-x"
    assert reply.usage is not None and reply.usage.total_tokens > 0
    assert json.loads(reply.model_dump_json())["provider"] == "scripted"


def test_chat_tool_call_streams_arguments_in_pieces(server: ScriptedOpenAIServer) -> None:
    args = {"command": "ls -la some/long/directory/name"}
    server.add_turns([text("let me look"), tool_call("run_shell_command", args, id="call_1")])
    stream = client(server).chat.completions.create(
        model="m",
        messages=USER,
        stream=True,
    )
    content = ""
    pieces: list[str] = []
    names: list[str] = []
    ids: list[str] = []
    finish: list[str] = []
    for chunk in stream:
        if not chunk.choices:
            continue
        delta = chunk.choices[0].delta
        content += delta.content or ""
        for call in delta.tool_calls or []:
            if call.id:
                ids.append(call.id)
            if call.function and call.function.name:
                names.append(call.function.name)
            if call.function and call.function.arguments:
                pieces.append(call.function.arguments)
        if chunk.choices[0].finish_reason:
            finish.append(chunk.choices[0].finish_reason)
    assert content == "let me look"
    assert names == ["run_shell_command"] and ids == ["call_1"]
    assert len(pieces) > 1
    assert json.loads("".join(pieces)) == args
    assert finish == ["tool_calls"]


def test_chat_non_streaming_tool_call(server: ScriptedOpenAIServer) -> None:
    server.add_turns([tool_call("read_file", {"file_path": "a.txt"})])
    reply = client(server).chat.completions.create(model="m", messages=USER)
    calls = reply.choices[0].message.tool_calls or []
    assert len(calls) == 1
    assert calls[0].function.name == "read_file"  # type: ignore[union-attr]
    assert json.loads(calls[0].function.arguments) == {"file_path": "a.txt"}  # type: ignore[union-attr]
    assert reply.choices[0].finish_reason == "tool_calls"


def test_responses_text_and_function_call(server: ScriptedOpenAIServer) -> None:
    server.add_turns(
        [text("thinking aloud"), tool_call("list_files", {"pattern": "*.py"}, id="c9")]
    )
    reply = client(server).responses.create(model="m", input="hi")
    assert reply.output_text == "thinking aloud"
    calls = [item for item in reply.output if item.type == "function_call"]
    assert [(c.name, c.call_id, json.loads(c.arguments)) for c in calls] == [
        ("list_files", "c9", {"pattern": "*.py"})
    ]
    assert reply.usage is not None and reply.usage.output_tokens > 0


def test_responses_streaming(server: ScriptedOpenAIServer) -> None:
    args = {"pattern": "**/*.md", "extra": "padding to make pieces"}
    server.add_turns([text("two words"), tool_call("list_files", args)])
    events = list(client(server).responses.create(model="m", input="hi", stream=True))
    types = [event.type for event in events]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "two words"
    arg_pieces = [e.delta for e in events if e.type == "response.function_call_arguments.delta"]
    assert len(arg_pieces) > 1 and json.loads("".join(arg_pieces)) == args
    completed = events[-1]
    assert completed.type == "response.completed"
    assert completed.response.output_text == "two words"
    assert completed.response.usage is not None


def test_responses_stream_helper_accumulates(server: ScriptedOpenAIServer) -> None:
    server.add_turns([text("done")])
    with client(server).responses.stream(model="m", input="hi") as stream:
        final = stream.get_final_response()
    assert final.output_text == "done"


@pytest.mark.parametrize(
    ("status", "error_class"),
    [
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (401, openai.AuthenticationError),
        (503, openai.InternalServerError),
    ],
)
def test_http_faults_map_to_client_exceptions(
    server: ScriptedOpenAIServer, status: int, error_class: type[openai.APIStatusError]
) -> None:
    server.add_turns([fault(status, "boom")], [fault(status, "boom")])
    with pytest.raises(error_class) as caught:
        client(server).chat.completions.create(model="m", messages=USER)
    assert caught.value.status_code == status
    assert caught.value.body is not None and "boom" in str(caught.value.body)
    with pytest.raises(error_class):
        client(server).responses.create(model="m", input="x", stream=True)


def test_client_retries_consume_turns(server: ScriptedOpenAIServer) -> None:
    server.add_turns([fault(503)], [text("recovered")])
    retrying = openai.OpenAI(base_url=server.url, api_key="k", max_retries=1)
    reply = retrying.chat.completions.create(model="m", messages=USER)
    assert reply.choices[0].message.content == "recovered"
    assert len(server.requests) == 2


def test_stall_times_out_the_client(server: ScriptedOpenAIServer) -> None:
    server.add_turns([stall(30), text("too late")])
    with pytest.raises(openai.APITimeoutError):
        client(server, timeout=0.5).chat.completions.create(model="m", messages=USER)


def test_dropped_connection_mid_stream(server: ScriptedOpenAIServer) -> None:
    server.add_turns([text("partial answer"), drop_connection()])
    received = ""
    with pytest.raises(openai.APIConnectionError):
        for chunk in client(server).chat.completions.create(
            model="m",
            messages=USER,
            stream=True,
        ):
            if chunk.choices:
                received += chunk.choices[0].delta.content or ""
    assert received == "partial answer"


def test_dropped_connection_before_reply(server: ScriptedOpenAIServer) -> None:
    server.add_turns([drop_connection()])
    with pytest.raises(openai.APIConnectionError):
        client(server).responses.create(model="m", input="x")


def test_unknown_path_is_404_json(server: ScriptedOpenAIServer) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        client(server).embeddings.create(model="m", input="x")
    assert "/v1/embeddings" in str(caught.value)
    assert isinstance(caught.value.body, dict) and caught.value.body["type"] == "not_found_error"


def test_exhausted_script_says_end_of_script(server: ScriptedOpenAIServer) -> None:
    reply = client(server).chat.completions.create(model="m", messages=USER)
    assert reply.choices[0].message.content == END_OF_SCRIPT


def test_requests_are_recorded(server: ScriptedOpenAIServer) -> None:
    server.add_turns([text("a")], [text("b")])
    client(server).chat.completions.create(model="m1", messages=USER)
    client(server).responses.create(model="m2", input="question", stream=True).close()
    first, second = server.requests
    assert (first.method, first.path) == ("POST", "/v1/chat/completions")
    assert first.headers["authorization"] == "Bearer sk-test"
    assert first.body == {"model": "m1", "messages": USER}
    assert second.path == "/v1/responses" and second.stream
    assert second.body["input"] == "question"


def test_script_function_sees_the_request() -> None:
    def answer(request: RecordedRequest) -> Turn:
        return [text(f"you asked {request.body['model']} at {request.path}")]

    with ScriptedOpenAIServer(answer) as server:
        reply = client(server).chat.completions.create(model="fn", messages=USER)
    assert reply.choices[0].message.content == "you asked fn at /v1/chat/completions"
