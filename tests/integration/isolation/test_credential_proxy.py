"""The official anthropic and openai clients and pydantic-ai's providers through the
credential proxy to the scripted model servers: the real key reaches the server, the
clients hold only the proxy token, streams and error statuses pass unchanged.

Each case runs against both fronts of the proxy where a client can tell them apart: its
socket (`socket`) and the httpx transport a client in this process gets from
`in_process_transport` (`in-process`), which must answer exactly as the socket does."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from contextlib import asynccontextmanager

import anthropic
import httpx2
import openai
import pytest
from loguru import logger
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.models.openrouter import OpenRouterModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.providers.openrouter import OpenRouterProvider

from amelia.isolation.proxy import (
    DEFAULT_UPSTREAM_TIMEOUT,
    CredentialProxy,
    ProxiedExchange,
    in_process_transport,
    running_proxy,
)
from amelia.isolation.upstreams import Upstream
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing import anthropic_server as scripted_anthropic
from amelia.testing import openai_server as scripted_openai

ANTHROPIC_KEY = "sk-ant-api03-real-key-held-by-amelia-only-0001"
OAUTH_TOKEN = "sk-ant-oat01-real-oauth-token-held-by-amelia-0002"
OPENAI_KEY = "sk-proj-real-openai-key-held-by-amelia-0003"
OPENROUTER_KEY = "sk-or-v1-real-openrouter-key-held-by-amelia-0004"


@pytest.fixture(params=["socket", "in-process"])
def front(request: pytest.FixtureRequest) -> str:
    """How the client reaches the proxy: over its socket, or through its in-process
    transport."""
    return str(request.param)


def _http_client(proxy: CredentialProxy, front: str) -> httpx2.AsyncClient | None:
    """The HTTP client a model client gets for `front` (None: the SDK's own, over the
    socket); the model client closes it."""
    if front == "socket":
        return None
    transport = in_process_transport(proxy.url)
    assert transport is not None
    return httpx2.AsyncClient(transport=transport)


def _raw_client(proxy: CredentialProxy, front: str) -> httpx2.AsyncClient:
    return _http_client(proxy, front) or httpx2.AsyncClient()


class Exchanges:
    """An observer keeping what the proxy tells it."""

    def __init__(self) -> None:
        self.seen: list[ProxiedExchange] = []

    def exchange(self, seen: ProxiedExchange) -> None:
        self.seen.append(seen)


@pytest.fixture
def openai_upstream() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


@asynccontextmanager
async def proxied(
    anthropic_upstream: ScriptedAnthropicServer | None = None,
    openai_upstream: ScriptedOpenAIServer | None = None,
    *,
    observer: Exchanges | None = None,
    timeout: httpx2.Timeout | None = None,
) -> AsyncIterator[CredentialProxy]:
    """A running proxy holding the real keys for the given scripted servers."""
    upstreams: list[Upstream] = []
    if anthropic_upstream is not None:
        upstreams.append(
            Upstream(
                provider="anthropic", credential=ANTHROPIC_KEY, base_url=anthropic_upstream.url
            )
        )
    if openai_upstream is not None:
        upstreams += [
            Upstream(provider="openai", credential=OPENAI_KEY, base_url=openai_upstream.url),
            Upstream(
                provider="openrouter", credential=OPENROUTER_KEY, base_url=openai_upstream.url
            ),
        ]
    async with CredentialProxy(
        upstreams, observer=observer, timeout=timeout or DEFAULT_UPSTREAM_TIMEOUT
    ) as running:
        yield running


@pytest.fixture
async def proxy(openai_upstream: ScriptedOpenAIServer) -> AsyncIterator[CredentialProxy]:
    with ScriptedAnthropicServer() as idle_anthropic:
        async with proxied(idle_anthropic, openai_upstream) as running:
            yield running


def _anthropic_client(proxy: CredentialProxy, front: str) -> anthropic.AsyncAnthropic:
    return anthropic.AsyncAnthropic(
        base_url=proxy.base_url("anthropic"),
        api_key=proxy.token,
        max_retries=0,
        http_client=_http_client(proxy, front),
    )


def _openai_client(
    proxy: CredentialProxy, front: str, provider: str = "openai", **options: float
) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=proxy.base_url(provider),  # type: ignore[arg-type]
        api_key=proxy.token,
        max_retries=0,
        http_client=_http_client(proxy, front),
        **options,  # type: ignore[arg-type]
    )


def _no_proxy_token_upstream(headers: list[dict[str, str]], proxy: CredentialProxy) -> None:
    for seen in headers:
        assert all(proxy.token not in value for value in seen.values())


# -- Anthropic ---------------------------------------------------------------------------

MESSAGE = {
    "model": "claude-test",
    "max_tokens": 8192,
    "messages": [{"role": "user", "content": "x"}],
}


async def test_anthropic_client_gets_an_answer_and_the_server_gets_the_real_key(
    front: str,
) -> None:
    with ScriptedAnthropicServer([[scripted_anthropic.text("hi")]]) as upstream:
        async with proxied(upstream) as proxy:
            client = _anthropic_client(proxy, front)
            message = await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await client.close()

    assert [block.text for block in message.content if block.type == "text"] == ["hi"]
    (request,) = upstream.requests
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == ANTHROPIC_KEY
    assert "authorization" not in request.headers
    assert request.headers["anthropic-version"]
    _no_proxy_token_upstream([request.headers], proxy)


async def test_anthropic_stream_arrives_event_by_event(front: str) -> None:
    script: list[scripted_anthropic.Turn] = [
        [
            scripted_anthropic.thinking("Let me look"),
            scripted_anthropic.text("Two words"),
            scripted_anthropic.tool_use("Bash", {"command": "ls"}, id="toolu_1"),
        ]
    ]
    kinds: list[str] = []
    with ScriptedAnthropicServer(script) as upstream:
        async with proxied(upstream) as proxy:
            client = _anthropic_client(proxy, front)
            async with client.messages.stream(
                **MESSAGE,  # type: ignore[arg-type]
                tools=[{"name": "Bash", "description": "run", "input_schema": {"type": "object"}}],
            ) as stream:
                async for event in stream:
                    kinds.append(event.type)
                final = await stream.get_final_message()
            await client.close()

    assert kinds[0] == "message_start" and kinds[-1] == "message_stop"
    assert kinds.count("content_block_start") == 3
    assert [block.type for block in final.content] == ["thinking", "text", "tool_use"]
    assert final.stop_reason == "tool_use"
    body = upstream.requests[0].body
    assert body is not None and body["stream"] is True


async def test_anthropic_error_status_and_retry_after_pass_unchanged(front: str) -> None:
    script = [scripted_anthropic.api_error(429, "slow down", retry_after_seconds=7)]
    with ScriptedAnthropicServer(script) as upstream:
        async with proxied(upstream) as proxy:
            client = _anthropic_client(proxy, front)
            with pytest.raises(anthropic.RateLimitError) as raised:
                await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await client.close()

    assert raised.value.status_code == 429
    assert raised.value.response.headers["retry-after"] == "7"
    assert raised.value.response.headers["request-id"].startswith("req_")
    assert raised.value.body == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
    }


async def _read_cut_stream(client: anthropic.AsyncAnthropic) -> type[BaseException]:
    try:
        async with client.messages.stream(**MESSAGE) as stream:  # type: ignore[arg-type]
            async for _event in stream:
                pass
    except Exception as error:
        return type(error)
    finally:
        await client.close()
    raise AssertionError("the cut stream ended cleanly")


async def test_a_stream_cut_upstream_is_cut_for_the_client_the_same_way(front: str) -> None:
    script = [
        scripted_anthropic.dropped(scripted_anthropic.text("a"), scripted_anthropic.text("b")),
        scripted_anthropic.dropped(scripted_anthropic.text("a"), scripted_anthropic.text("b")),
    ]
    with ScriptedAnthropicServer(script) as upstream:
        direct = anthropic.AsyncAnthropic(base_url=upstream.url, api_key="k", max_retries=0)
        without_proxy = await _read_cut_stream(direct)
        async with proxied(upstream) as proxy:
            through_proxy = await _read_cut_stream(_anthropic_client(proxy, front))

    assert through_proxy is without_proxy
    assert issubclass(through_proxy, httpx2.RemoteProtocolError | anthropic.APIError)


async def test_oauth_token_goes_upstream_as_bearer_with_the_oauth_beta(front: str) -> None:
    with ScriptedAnthropicServer([[scripted_anthropic.text("hi")]]) as upstream:
        oauth = Upstream(
            provider="anthropic", credential=OAUTH_TOKEN, kind="oauth_token", base_url=upstream.url
        )
        async with CredentialProxy([oauth]) as proxy:
            client = anthropic.AsyncAnthropic(
                base_url=proxy.base_url("anthropic"),
                auth_token=proxy.token,
                api_key=None,
                max_retries=0,
                default_headers={"anthropic-beta": "claude-code-20250219"},
                http_client=_http_client(proxy, front),
            )
            await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await client.close()

    (request,) = upstream.requests
    assert request.headers["authorization"] == f"Bearer {OAUTH_TOKEN}"
    assert "x-api-key" not in request.headers
    assert request.headers["anthropic-beta"] == "claude-code-20250219,oauth-2025-04-20"


# -- OpenAI and OpenRouter ---------------------------------------------------------------


@pytest.mark.parametrize("stream", [False, True], ids=["complete", "streamed"])
async def test_openai_client_chat_and_responses_through_the_proxy(
    proxy: CredentialProxy, openai_upstream: ScriptedOpenAIServer, stream: bool, front: str
) -> None:
    openai_upstream.add_turns([scripted_openai.text("chat answer")])
    openai_upstream.add_turns([scripted_openai.text("responses answer")])
    client = _openai_client(proxy, front)
    if stream:
        pieces: list[str] = []
        chunks = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}], stream=True
        )
        async for chunk in chunks:
            pieces.extend(choice.delta.content or "" for choice in chunk.choices)
        chat_text = "".join(pieces)
        events = await client.responses.create(model="m", input="x", stream=True)
        done = [event async for event in events if event.type == "response.completed"]
        responses_text = done[0].response.output_text
    else:
        completion = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )
        chat_text = completion.choices[0].message.content or ""
        responses_text = (await client.responses.create(model="m", input="x")).output_text
    await client.close()

    assert (chat_text, responses_text) == ("chat answer", "responses answer")
    assert [r.path for r in openai_upstream.requests] == ["/v1/chat/completions", "/v1/responses"]
    assert {r.headers["authorization"] for r in openai_upstream.requests} == {
        f"Bearer {OPENAI_KEY}"
    }
    _no_proxy_token_upstream([r.headers for r in openai_upstream.requests], proxy)


async def test_openai_stream_is_passed_on_before_the_upstream_finishes(
    proxy: CredentialProxy, openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    # The upstream sends its first words, then stalls until the server stops: only a proxy
    # that forwards each chunk as it comes lets the client see them meanwhile.
    openai_upstream.add_turns(
        [scripted_openai.text("early words"), scripted_openai.stall(600), scripted_openai.text("z")]
    )
    client = _openai_client(proxy, front, timeout=120)
    chunks = await client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": "x"}], stream=True
    )
    seen = ""
    async for chunk in chunks:
        seen += "".join(choice.delta.content or "" for choice in chunk.choices)
        if seen == "early words":
            break
    await chunks.close()
    await client.close()
    assert seen == "early words"


async def test_openai_error_statuses_pass_unchanged(
    proxy: CredentialProxy, openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    openai_upstream.add_turns([scripted_openai.fault(503, "busy")])
    openai_upstream.add_turns([scripted_openai.fault(400, "bad request")])
    client = _openai_client(proxy, front)
    with pytest.raises(openai.InternalServerError) as busy:
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    with pytest.raises(openai.BadRequestError) as bad:
        await client.responses.create(model="m", input="x")
    await client.close()
    assert (busy.value.status_code, bad.value.status_code) == (503, 400)
    assert bad.value.message.endswith("bad request")


@pytest.mark.parametrize("provider", ["openai", "openai-chat", "openrouter"])
@pytest.mark.parametrize("stream", [False, True], ids=["run", "run_stream"])
async def test_pydantic_ai_providers_through_the_proxy(
    proxy: CredentialProxy,
    openai_upstream: ScriptedOpenAIServer,
    provider: str,
    stream: bool,
    front: str,
) -> None:
    openai_upstream.add_turns([scripted_openai.text("pydantic answer")])
    environment = proxy.openai_environment()
    prefix = "openrouter" if provider == "openrouter" else "openai"
    client = openai.AsyncOpenAI(
        api_key=environment[f"{prefix.upper()}_API_KEY"],
        base_url=environment[f"{prefix.upper()}_BASE_URL"],
        max_retries=0,
        http_client=_http_client(proxy, front),
    )
    if provider == "openrouter":
        model: OpenAIChatModel | OpenAIResponsesModel = OpenRouterModel(
            "vendor/model", provider=OpenRouterProvider(openai_client=client)
        )
    elif provider == "openai-chat":
        model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(openai_client=client))
    else:
        model = OpenAIResponsesModel("gpt-test", provider=OpenAIProvider(openai_client=client))
    agent = Agent(model)
    if stream:
        async with agent.run_stream("hello") as result:
            output = await result.get_output()
    else:
        output = (await agent.run("hello")).output
    await client.close()

    assert output == "pydantic answer"
    (request,) = openai_upstream.requests
    expected = OPENROUTER_KEY if provider == "openrouter" else OPENAI_KEY
    assert request.headers["authorization"] == f"Bearer {expected}"
    assert request.path == ("/v1/responses" if provider == "openai" else "/v1/chat/completions")


# -- refusals ----------------------------------------------------------------------------


async def test_requests_without_the_proxy_token_are_refused_with_401(
    openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    with ScriptedAnthropicServer() as upstream:
        async with proxied(upstream, openai_upstream) as proxy:
            client = anthropic.AsyncAnthropic(
                base_url=proxy.base_url("anthropic"),
                api_key="sk-ant-guessed",
                max_retries=0,
                http_client=_http_client(proxy, front),
            )
            with pytest.raises(anthropic.AuthenticationError) as raised:
                await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await client.close()
            wrong_openai = openai.AsyncOpenAI(
                base_url=proxy.base_url("openai"),
                api_key="sk-wrong",
                max_retries=0,
                http_client=_http_client(proxy, front),
            )
            with pytest.raises(openai.AuthenticationError) as wrong:
                await wrong_openai.responses.create(model="m", input="x")
            await wrong_openai.close()
            async with _raw_client(proxy, front) as raw:
                bare = await raw.post(proxy.base_url("anthropic") + "/v1/messages", content=b"{}")

    assert raised.value.status_code == 401
    assert raised.value.body == {
        "type": "error",
        "error": {
            "type": "authentication_error",
            "message": "amelia credential proxy: the proxy token is missing or wrong",
        },
    }
    assert wrong.value.code == "invalid_api_key"
    assert bare.status_code == 401
    assert upstream.requests == []
    assert openai_upstream.requests == []


OUTSIDE_THE_APIS = [
    ("GET", "/anthropic/v1/models"),
    ("POST", "/anthropic/v1/files"),
    ("GET", "/anthropic/v1/messages"),
    ("POST", "/anthropic/v1/messages/../../v1/organizations/me"),
    ("POST", "/anthropic/v1/messages/%2e%2e/batches"),
    ("POST", "/anthropic//v1/messages"),
    ("POST", "/anthropic/v1/messages/"),
    ("HEAD", "/anthropic/api/hello"),
    ("POST", "/openai/files"),
    ("POST", "/openai/../anthropic/v1/messages"),
    ("POST", "/openrouter/v1/chat/completions"),
    ("POST", "/v1/messages"),
    ("POST", "/elsewhere/v1/messages"),
    ("POST", "http://example.com/anthropic/v1/messages"),
    ("POST", "/anthropic/v1/messages?beta=true#x"),
]


async def _status(port: int, method: str, target: str, token: str) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(
        f"{method} {target} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: {token}\r\n"
        "content-length: 2\r\n\r\n{}".encode()
    )
    await writer.drain()
    status_line = await reader.readline()
    writer.close()
    return status_line.split()[1]


async def _in_process_status(proxy: CredentialProxy, method: str, target: str) -> bytes:
    async with _raw_client(proxy, "in-process") as raw:
        answer = await raw.request(
            method, proxy.url + target, headers={"x-api-key": proxy.token}, content=b"{}"
        )
    return str(answer.status_code).encode()


async def test_paths_outside_the_apis_are_refused(
    openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    with ScriptedAnthropicServer() as upstream:
        async with proxied(upstream, openai_upstream) as proxy:
            port = int(proxy.url.rsplit(":", 1)[1])

            async def status(method: str, target: str) -> bytes:
                if front == "socket":
                    return await _status(port, method, target, proxy.token)
                return await _in_process_status(proxy, method, target)

            # An HTTP client cannot send an absolute target or a fragment, and it removes
            # dot segments from its paths: only the socket can be asked those.
            cases = [
                (method, target)
                for method, target in OUTSIDE_THE_APIS
                if front == "socket"
                or (target.startswith("/") and "#" not in target and "/../" not in target)
            ]
            statuses = {
                f"{method} {target}": await status(method, target) for method, target in cases
            }
            served = await status("POST", "/anthropic/v1/messages?beta=true")

    assert len(statuses) == (len(OUTSIDE_THE_APIS) if front == "socket" else 11)
    assert statuses == {case: b"404" for case in statuses}
    assert served == b"200"
    assert [request.path for request in upstream.requests] == ["/v1/messages?beta=true"]
    assert openai_upstream.requests == []


async def test_a_body_over_the_limit_is_refused_with_413(front: str) -> None:
    with ScriptedAnthropicServer() as upstream:
        held = Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)
        async with CredentialProxy([held], max_request_bytes=1000) as proxy:
            client = _anthropic_client(proxy, front)
            with pytest.raises(anthropic.APIStatusError) as raised:
                await client.messages.create(  # type: ignore[call-overload]
                    **{**MESSAGE, "messages": [{"role": "user", "content": "x" * 2000}]}
                )
            await client.close()

    assert raised.value.status_code == 413
    assert raised.value.body == {
        "type": "error",
        "error": {
            "type": "request_too_large",
            "message": "amelia credential proxy: the request body is too large",
        },
    }
    assert upstream.requests == []


async def test_concurrent_streams_each_get_their_own_answer(front: str) -> None:
    def answer(request: scripted_openai.RecordedRequest) -> list[scripted_openai.ScriptItem]:
        return [scripted_openai.text(f"answer to {request.body['messages'][0]['content']}")]

    with ScriptedOpenAIServer(answer) as upstream:
        async with proxied(openai_upstream=upstream) as proxy:
            client = _openai_client(proxy, front)

            async def ask(question: str) -> str:
                chunks = await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": question}], stream=True
                )
                pieces = [c.delta.content or "" async for chunk in chunks for c in chunk.choices]
                return "".join(pieces)

            answers = await asyncio.gather(*(ask(f"q{n}") for n in range(8)))
            await client.close()

    assert answers == [f"answer to q{n}" for n in range(8)]


async def test_an_unreachable_upstream_is_a_502_in_the_apis_shape(front: str) -> None:
    with ScriptedAnthropicServer() as gone:
        pass
    async with proxied(gone) as proxy:
        client = _anthropic_client(proxy, front)
        with pytest.raises(anthropic.InternalServerError) as raised:
            await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
        await client.close()
    assert raised.value.status_code == 502
    assert raised.value.body == {
        "type": "error",
        "error": {
            "type": "api_error",
            "message": "amelia credential proxy: the model API could not be reached (ConnectError)",
        },
    }
    assert ANTHROPIC_KEY not in str(raised.value.body)


@pytest.mark.parametrize("failing", ["forwarded_request_headers", "forwarded_response_headers"])
async def test_an_unexpected_error_while_forwarding_is_a_502_naming_only_its_type(
    monkeypatch: pytest.MonkeyPatch, front: str, failing: str
) -> None:
    # A bug of the proxy's or a library's, before the upstream is asked or once it answered:
    # its message may hold a URL or a header, which neither the client nor the log gets.
    def broken(*_args: object) -> object:
        raise RuntimeError(f"cannot pass on x-api-key: {ANTHROPIC_KEY}")

    warnings: list[str] = []
    sink = logger.add(lambda message: warnings.append(str(message)), level="WARNING")
    observer = Exchanges()
    try:
        script = [[scripted_anthropic.text("answer")], [scripted_anthropic.text("answer")]]
        with ScriptedAnthropicServer(script) as upstream:
            async with proxied(upstream, observer=observer) as proxy:
                client = _anthropic_client(proxy, front)
                with monkeypatch.context() as patched:
                    patched.setattr(f"amelia.isolation.proxy.{failing}", broken)
                    with pytest.raises(anthropic.InternalServerError) as raised:
                        await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
                answer = await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
                await client.close()
    finally:
        logger.remove(sink)

    assert raised.value.status_code == 502
    assert raised.value.body == {
        "type": "error",
        "error": {
            "type": "api_error",
            "message": "amelia credential proxy: it could not forward the request (RuntimeError)",
        },
    }
    assert [block.text for block in answer.content if block.type == "text"] == ["answer"]
    assert len(upstream.requests) == (1 if failing == "forwarded_request_headers" else 2)
    (warning,) = warnings
    assert "POST /anthropic/v1/messages" in warning and "RuntimeError" in warning
    assert ANTHROPIC_KEY not in warning and "x-api-key" not in warning
    assert [exchange.status for exchange in observer.seen] == [200]


async def test_an_upstream_that_does_not_answer_in_time_is_a_504_in_the_apis_shape(
    openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    # The upstream stalls before its answer until the server stops; the proxy waits 0.2 s.
    openai_upstream.add_turns([scripted_openai.stall(600), scripted_openai.text("late")])
    quick = httpx2.Timeout(30.0, read=0.2)
    async with proxied(openai_upstream=openai_upstream, timeout=quick) as proxy:
        client = _openai_client(proxy, front)
        with pytest.raises(openai.APIStatusError) as raised:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}]
            )
        await client.close()
    assert raised.value.status_code == 504
    assert raised.value.body == {
        "message": "amelia credential proxy: the model API did not answer in time",
        "type": "timeout_error",
        "param": None,
        "code": None,
    }


async def test_an_openai_stream_cut_upstream_is_cut_for_the_client_mid_body(
    openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    openai_upstream.add_turns(
        [scripted_openai.text("first words"), scripted_openai.drop_connection()]
    )
    async with proxied(openai_upstream=openai_upstream) as proxy:
        client = _openai_client(proxy, front)
        chunks = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}], stream=True
        )
        seen = ""
        with pytest.raises(openai.APIConnectionError) as raised:
            async for chunk in chunks:
                seen += "".join(choice.delta.content or "" for choice in chunk.choices)
        await client.close()
    assert seen == "first words"
    assert isinstance(raised.value.__cause__, httpx2.RemoteProtocolError)


async def test_the_observer_sees_each_exchange_once_it_ended(
    openai_upstream: ScriptedOpenAIServer, front: str
) -> None:
    openai_upstream.add_turns([scripted_openai.text("whole answer")])
    openai_upstream.add_turns([scripted_openai.text("streamed answer")])
    openai_upstream.add_turns([scripted_openai.text("cut"), scripted_openai.drop_connection()])
    observer = Exchanges()
    async with proxied(openai_upstream=openai_upstream, observer=observer) as proxy:
        client = _openai_client(proxy, front)
        await client.chat.completions.create(model="m", messages=[{"role": "user", "content": "1"}])
        assert len(observer.seen) == 1
        chunks = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "2"}], stream=True
        )
        async for _chunk in chunks:
            pass
        assert len(observer.seen) == 2
        cut = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "3"}], stream=True
        )
        with pytest.raises(openai.APIConnectionError):
            async for _chunk in cut:
                pass
        await client.close()

    whole, streamed, broken = observer.seen
    assert [(e.provider, e.method, e.path, e.status) for e in observer.seen] == [
        ("openai", "POST", "/chat/completions", 200)
    ] * 3
    assert [e.complete for e in observer.seen] == [True, True, False]
    assert [json.loads(e.request_body)["messages"][0]["content"] for e in observer.seen] == [
        "1",
        "2",
        "3",
    ]
    assert json.loads(whole.response_body)["choices"][0]["message"]["content"] == "whole answer"
    assert _streamed_text(streamed.response_body) == "streamed answer"
    assert streamed.response_body.rstrip().endswith(b"data: [DONE]")
    assert _streamed_text(broken.response_body) == "cut"
    assert b"[DONE]" not in broken.response_body
    headers = dict(streamed.response_headers)
    assert headers["Content-Type"] == "text/event-stream"
    assert "Transfer-Encoding" not in headers
    for exchange in observer.seen:
        assert proxy.token.encode() not in exchange.request_body
        assert OPENAI_KEY.encode() not in exchange.request_body + exchange.response_body


def _streamed_text(body: bytes) -> str:
    """The text of a chat-completions SSE body, joined from its deltas."""
    events = [
        json.loads(line.removeprefix(b"data: "))
        for line in body.splitlines()
        if line.startswith(b"data: {")
    ]
    return "".join(c["delta"].get("content") or "" for e in events for c in e["choices"])


async def test_keep_alive_connections_serve_several_requests_and_stop_cleanly() -> None:
    with ScriptedAnthropicServer() as upstream:
        proxy = await CredentialProxy(
            [Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)]
        ).start()
        client = _anthropic_client(proxy, "socket")
        for _ in range(3):
            await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
        url = proxy.url
        assert proxy.socket_connections == 1
        await proxy.stop()
        await client.close()

    assert len(upstream.requests) == 3
    async with httpx2.AsyncClient() as raw:
        with pytest.raises(httpx2.ConnectError):
            await raw.post(url + "/anthropic/v1/messages", content=b"{}")


async def test_in_process_clients_use_no_socket_and_a_stopped_proxy_is_no_longer_found() -> None:
    with ScriptedAnthropicServer() as upstream:
        proxy = await CredentialProxy(
            [Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)]
        ).start()
        url = proxy.url
        assert running_proxy(proxy.base_url("anthropic")) is proxy
        assert running_proxy(url.replace("127.0.0.1", "localhost")) is None
        client = _anthropic_client(proxy, "in-process")
        for _ in range(3):
            await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
        assert proxy.socket_connections == 0
        await proxy.stop()
        assert running_proxy(url) is None
        assert in_process_transport(url + "/anthropic") is None
        # A client that kept its transport reaches nothing once the proxy stopped.
        with pytest.raises(anthropic.APIConnectionError):
            await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
        await client.close()

    assert len(upstream.requests) == 3
    assert {request.headers["x-api-key"] for request in upstream.requests} == {ANTHROPIC_KEY}


async def test_the_in_process_transport_is_only_for_the_proxy_on_this_event_loop() -> None:
    with ScriptedAnthropicServer() as upstream:
        held = Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)
        async with CredentialProxy([held]) as proxy:
            url = proxy.base_url("anthropic")
            assert in_process_transport(url) is not None
            # Another event loop of this process (a thread running its own) gets none: the
            # proxy's upstream pool belongs to its own loop.
            elsewhere = await asyncio.to_thread(asyncio.run, _lookup(url))
            assert elsewhere is False
            assert in_process_transport(upstream.url) is None
            async with _raw_client(proxy, "in-process") as raw:
                with pytest.raises(httpx2.ConnectError):
                    await raw.post(upstream.url + "/v1/messages", content=b"{}")
    assert upstream.requests == []


async def _lookup(url: str) -> bool:
    return in_process_transport(url) is not None


async def test_a_restarted_proxy_has_a_new_token_and_refuses_the_old_one(front: str) -> None:
    with ScriptedAnthropicServer() as upstream:
        held = Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)
        proxy = CredentialProxy([held])
        await proxy.start()
        old_token = proxy.token
        old_environment = proxy.claude_environment()
        await proxy.stop()
        await proxy.start()
        try:
            assert proxy.token != old_token
            assert proxy.claude_environment()["ANTHROPIC_API_KEY"] == proxy.token
            assert old_token not in proxy.claude_environment().values()
            assert old_environment["ANTHROPIC_API_KEY"] == old_token
            stale = anthropic.AsyncAnthropic(
                base_url=proxy.base_url("anthropic"),
                api_key=old_token,
                max_retries=0,
                http_client=_http_client(proxy, front),
            )
            with pytest.raises(anthropic.AuthenticationError) as refused:
                await stale.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await stale.close()
            client = _anthropic_client(proxy, front)
            answer = await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
            await client.close()
        finally:
            await proxy.stop()

    assert refused.value.status_code == 401
    assert answer.type == "message"
    assert len(upstream.requests) == 1


@pytest.mark.parametrize("restarted", [False, True], ids=["stopped", "restarted"])
async def test_a_request_still_coming_in_when_the_proxy_stops_goes_nowhere(
    restarted: bool,
) -> None:
    routed = asyncio.Event()
    release = asyncio.Event()

    async def slow_body() -> AsyncIterator[bytes]:
        yield b'{"model": "claude-test", "max_tokens": 8,'
        routed.set()  # the proxy checked the token and asks for the rest of the body
        await release.wait()
        yield b' "messages": [{"role": "user", "content": "x"}]}'

    with ScriptedAnthropicServer() as upstream:
        held = Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)
        proxy = await CredentialProxy([held]).start()
        async with _raw_client(proxy, "in-process") as raw:
            request = asyncio.create_task(
                raw.post(
                    proxy.base_url("anthropic") + "/v1/messages",
                    headers={"x-api-key": proxy.token},
                    content=slow_body(),
                )
            )
            await routed.wait()
            await proxy.stop()
            if restarted:  # running again, with a new token: not the one it was let in with
                await proxy.start()
            release.set()
            with pytest.raises(httpx2.RemoteProtocolError):
                await request
            await proxy.stop()

    assert upstream.requests == []


async def test_a_client_taken_to_another_event_loop_is_refused_there_and_served_here() -> None:
    with ScriptedAnthropicServer() as upstream:
        held = Upstream(provider="anthropic", credential=ANTHROPIC_KEY, base_url=upstream.url)
        async with CredentialProxy([held]) as proxy:
            client = _anthropic_client(proxy, "in-process")
            # A thread running its own event loop with the client this loop made.
            elsewhere = await asyncio.to_thread(asyncio.run, _ask(client))
            here = await _ask(client)
            await client.close()

    assert elsewhere == "APIConnectionError"
    assert here == "Message"
    assert len(upstream.requests) == 1


async def _ask(client: anthropic.AsyncAnthropic) -> str:
    try:
        answer = await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
    except anthropic.APIError as error:
        return type(error).__name__
    return type(answer).__name__


async def test_an_unexpected_error_in_the_middle_of_an_answer_cuts_it_like_an_upstream_cut(
    monkeypatch: pytest.MonkeyPatch, front: str
) -> None:
    # The status line is out: no 502 can follow. The answer is cut as a stream cut upstream
    # is, the log names the error's type only, and the proxy answers the next request.
    from amelia.isolation import proxy as proxy_module

    made = proxy_module._Answer.__init__

    def breaking(answer: proxy_module._Answer, *args: object, **options: object) -> None:
        made(answer, *args, **options)  # type: ignore[arg-type]
        chunks = answer._chunks

        async def then_broken() -> AsyncGenerator[bytes]:
            async for chunk in chunks:
                yield chunk
                raise RuntimeError(f"cannot pass on x-api-key: {ANTHROPIC_KEY}")

        answer._chunks = then_broken()

    warnings: list[str] = []
    sink = logger.add(lambda message: warnings.append(str(message)), level="WARNING")
    observer = Exchanges()
    two = [scripted_anthropic.text("a"), scripted_anthropic.text("b")]
    try:
        with ScriptedAnthropicServer([two, [scripted_anthropic.text("next")]]) as upstream:
            async with proxied(upstream, observer=observer) as proxy:
                with monkeypatch.context() as patched:
                    patched.setattr(proxy_module._Answer, "__init__", breaking)
                    broken = await _read_cut_stream(_anthropic_client(proxy, front))
                client = _anthropic_client(proxy, front)
                answer = await client.messages.create(**MESSAGE)  # type: ignore[call-overload]
                await client.close()
    finally:
        logger.remove(sink)

    assert issubclass(broken, httpx2.RemoteProtocolError | anthropic.APIError)
    assert [block.text for block in answer.content if block.type == "text"] == ["next"]
    (warning,) = warnings
    assert "POST /anthropic/v1/messages" in warning and "RuntimeError" in warning
    assert ANTHROPIC_KEY not in warning and "x-api-key" not in warning
    assert [exchange.complete for exchange in observer.seen] == [False, True]
