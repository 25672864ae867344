"""A local credential proxy: the model clients hold a per-run token for it, never a key.

    async with CredentialProxy([Upstream(provider="anthropic", credential=key)]) as proxy:
        driver = ClaudeCliDriver(env=proxy.claude_environment(), ...)

The proxy listens on 127.0.0.1 on a random port inside amelia's event loop. A request
must carry the proxy's token (`x-api-key` or `Authorization: Bearer`), or it is answered
401; a path that is not one of the APIs' generation endpoints is answered 404 (see
`upstreams`). An accepted request goes to the real API with the real credential in place
of the token; the answer comes back as it arrives (SSE streams are not buffered) with its
status and headers (`retry-after`, rate-limit headers, request ids) unchanged. When the
upstream cannot be reached the client gets 502 (504 on a timeout) in the API's error
shape, so its own retry policy applies; any other failure to forward is a 502 too, naming
only the error's type (its message may hold a URL or a header), and a warning in the log. A
stream cut upstream is cut for the client too, and so is an answer that breaks off in the
proxy for any other reason (with the same warning).

The proxy has two fronts to one way of answering (route or refuse, then forward and
observe): its socket, for clients in other processes such as the Claude Code CLI, and an
httpx transport for clients in this process (`in_process_transport`), which hands each
request to the proxy on the event loop it runs on, without a socket or HTTP framing, and
answers exactly as the socket would (same token check, refusals, header rewriting,
upstream client and timeouts; a cut stream raises `httpx2.RemoteProtocolError` mid-body).
The transport is an object of this process: nothing outside it can reach the proxy but
through the socket, with the token.

The real credential lives only in this process's memory, so the Claude Code CLI and the
agents' tools, which can read each other's environment, never see it. The token lets a
process that finds it use the model API through the proxy while the run lasts, no more:
it is worthless once the proxy stops (a restarted proxy has a new one), and never reaches
anything but these endpoints.

An `ExchangeObserver` given to the proxy sees every forwarded exchange once it ended,
through either front: the request body as the client sent it and the answer as it came
back (status, headers, the raw body), e.g. to record the run (`amelia.replay`). Neither
the token nor the credential is part of what it sees.
"""

from __future__ import annotations

import asyncio
import functools
import hmac
import json
import secrets
import ssl
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Protocol
from urllib.parse import urlsplit

import h11
import httpx2
from loguru import logger

from amelia.errors import AmeliaError
from amelia.isolation.upstreams import (
    CredentialKind,
    Provider,
    Upstream,
    forwarded_request_headers,
    forwarded_response_headers,
    presented_credentials,
)

__all__ = [
    "DEFAULT_UPSTREAM_TIMEOUT",
    "MAX_REQUEST_BYTES",
    "CredentialProxy",
    "ExchangeObserver",
    "ProxiedExchange",
    "in_process_transport",
    "running_proxy",
]

MAX_REQUEST_BYTES: Final = 64 * 1024 * 1024
"""By default, larger request bodies are answered 413 (the APIs themselves stop at 32 MB)."""

DEFAULT_UPSTREAM_TIMEOUT: Final = httpx2.Timeout(connect=30.0, read=900.0, write=120.0, pool=60.0)
"""Generous reads: a model may think for minutes before its first byte."""

_READ_CHUNK: Final = 65536
_PROVIDERS: Final[tuple[Provider, ...]] = ("anthropic", "openai", "openrouter")
_OPENAI_STYLE_VARIABLES: Final[tuple[tuple[Provider, str, str], ...]] = (
    ("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    ("openrouter", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"),
)
_CLAUDE_KEY_VARIABLES: Final[dict[CredentialKind, str]] = {
    "api_key": "ANTHROPIC_API_KEY",
    "oauth_token": "CLAUDE_CODE_OAUTH_TOKEN",
    "auth_token": "ANTHROPIC_AUTH_TOKEN",
}
_TOKEN_PREFIX: Final = "amelia-proxy-"  # noqa: S105 (a label, not a secret)
_HOST: Final = "127.0.0.1"

_RUNNING: Final[weakref.WeakValueDictionary[str, CredentialProxy]] = weakref.WeakValueDictionary()
"""The proxies of this process that are running, by their URL (`http://127.0.0.1:<port>`)."""


@dataclass(frozen=True, kw_only=True)
class ProxiedExchange:
    """One request the proxy forwarded and the answer it passed back."""

    provider: Provider
    method: str
    path: str
    """The path under the provider's prefix, e.g. `/v1/messages`."""
    request_body: bytes
    status: int
    response_headers: tuple[tuple[str, str], ...]
    response_body: bytes
    """As it came over the wire (still compressed when `content-encoding` says so)."""
    complete: bool
    """False when the answer was cut before its end."""


class ExchangeObserver(Protocol):
    """Told of every exchange the proxy forwarded, after it ended."""

    def exchange(self, seen: ProxiedExchange) -> None: ...


@dataclass(frozen=True)
class _Refusal:
    """An answer the proxy gives itself: status, the API's error type, a message."""

    status: int
    kind: str
    message: str


@dataclass(frozen=True)
class _Refused:
    """A refusal as the client gets it: in the error shape of the API it asked."""

    provider: Provider | None
    refusal: _Refusal

    @property
    def status(self) -> int:
        return self.refusal.status

    @property
    def body(self) -> bytes:
        return _error_body(self.provider, self.refusal)


@dataclass(frozen=True)
class _Route:
    upstream: Upstream
    suffix: str
    query: str


class _UpstreamCutError(AmeliaError):
    """The upstream broke off its answer."""


class _Answer:
    """An upstream answer on its way to the client: its head, then its raw chunks as they
    come (`read`). `aclose` ends it and tells the observer, once."""

    def __init__(
        self,
        response: httpx2.Response,
        *,
        route: _Route,
        method: str,
        request_body: bytes,
        observer: ExchangeObserver | None,
    ) -> None:
        self.status = response.status_code
        self.reason = response.reason_phrase.encode("ascii", "replace")
        self.headers = forwarded_response_headers(response.headers.raw)
        self._response = response
        self._chunks = response.aiter_raw()
        self._route = route
        self._method = method
        self._request_body = request_body
        self._observer = observer
        self._seen: list[bytes] = []
        self._complete = False
        self._closed = False

    async def read(self) -> bytes:
        """The next chunk as it came over the wire; b"" at the end of the answer."""
        try:
            async for chunk in self._chunks:
                if chunk:
                    if self._observer is not None:
                        self._seen.append(chunk)
                    return chunk
        except httpx2.HTTPError as error:
            raise _UpstreamCutError(type(error).__name__) from error
        except Exception as error:  # a bug, ours or a library's, once the status line is out
            kind = type(error).__name__  # only: its message may hold a URL or a header
            route = self._route
            logger.warning(
                "The credential proxy's answer to {} {}{} broke off: {}",
                self._method,
                route.upstream.prefix,
                route.suffix,
                kind,
            )
            raise _UpstreamCutError(kind) from error
        return b""

    def delivered(self) -> None:
        """The client has the whole answer."""
        self._complete = True

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            try:
                await self._chunks.aclose()
            finally:
                await self._response.aclose()
        finally:
            if self._observer is not None:
                self._observe(self._observer)

    def _observe(self, observer: ExchangeObserver) -> None:
        """Tell the observer; its failure is logged, never the client's problem."""
        seen = ProxiedExchange(
            provider=self._route.upstream.provider,
            method=self._method,
            path=self._route.suffix,
            request_body=self._request_body,
            status=self.status,
            response_headers=tuple(
                (name.decode("latin-1"), value.decode("latin-1")) for name, value in self.headers
            ),
            response_body=b"".join(self._seen),
            complete=self._complete,
        )
        try:
            observer.exchange(seen)
        except Exception as error:  # an observer's bug must not break the run
            logger.warning("The credential proxy's observer failed: {}", error)


class CredentialProxy:
    """Serves the given upstreams on 127.0.0.1 behind a per-run token; an async context."""

    def __init__(
        self,
        upstreams: Sequence[Upstream],
        *,
        timeout: httpx2.Timeout = DEFAULT_UPSTREAM_TIMEOUT,
        max_request_bytes: int = MAX_REQUEST_BYTES,
        observer: ExchangeObserver | None = None,
    ) -> None:
        providers = [upstream.provider for upstream in upstreams]
        if len(set(providers)) != len(providers):
            raise ValueError("each provider may have one upstream only")
        self._upstreams: dict[Provider, Upstream] = {u.provider: u for u in upstreams}
        self._token = _new_token()
        self._timeout = timeout
        self._max_request_bytes = max_request_bytes
        self._observer = observer
        self._client: httpx2.AsyncClient | None = None
        self._server: asyncio.Server | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._accepted = 0
        self._port = 0

    # -- what clients are given -----------------------------------------------------------

    @property
    def token(self) -> str:
        """The per-run token clients present (a new one after each `stop`); redact it like
        any credential."""
        return self._token

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, once started."""
        if self._server is None:
            raise RuntimeError("the credential proxy is not running")
        return f"http://{_HOST}:{self._port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def socket_connections(self) -> int:
        """How many connections its socket accepted so far (clients in this process that
        use `in_process_transport` make none)."""
        return self._accepted

    def base_url(self, provider: Provider) -> str:
        """The base URL a client of `provider` uses instead of the real one."""
        if provider not in self._upstreams:
            raise KeyError(f"the credential proxy holds no credential for {provider}")
        return self.url + self._upstreams[provider].prefix

    def claude_environment(self) -> dict[str, str]:
        """Variables for the Claude Code CLI: the proxy as its API, the token as its key.

        The token takes the place of the real credential's variable (ANTHROPIC_API_KEY,
        CLAUDE_CODE_OAUTH_TOKEN or ANTHROPIC_AUTH_TOKEN), so the CLI speaks to the proxy as
        it would to the API with that credential (OAuth: bearer plus the OAuth beta) and
        only the credential is swapped; the other two are blanked.
        """
        upstream = self._upstreams.get("anthropic")
        if upstream is None:
            raise KeyError("the credential proxy holds no Anthropic credential")
        environment = {"ANTHROPIC_BASE_URL": self.base_url("anthropic")}
        for kind, variable in _CLAUDE_KEY_VARIABLES.items():
            environment[variable] = self._token if kind == upstream.kind else ""
        return environment

    def openai_environment(self) -> dict[str, str]:
        """OPENAI_/OPENROUTER_ API key and base URL for the upstreams held, as the API
        driver's provider lookup reads them (pass it as that lookup's environment)."""
        environment: dict[str, str] = {}
        for provider, key, base in _OPENAI_STYLE_VARIABLES:
            if provider in self._upstreams:
                environment[key] = self._token
                environment[base] = self.base_url(provider)
        return environment

    def transport(self) -> httpx2.AsyncBaseTransport:
        """An httpx transport that hands requests to this proxy in this process, for a
        client on the event loop the proxy runs on (it refuses requests from any other);
        requests still need the token."""
        return _InProcessTransport(self)

    # -- lifecycle --------------------------------------------------------------------------

    async def start(self) -> CredentialProxy:
        if self._server is not None:
            return self
        self._server = await asyncio.start_server(self._serve, host=_HOST, port=0)
        self._port = int(self._server.sockets[0].getsockname()[1])
        self._loop = asyncio.get_running_loop()
        _RUNNING[self.url] = self
        return self

    async def stop(self) -> None:
        """Stop listening, cut open connections and close the upstream pool; the token is
        replaced, so a restarted proxy refuses the one clients had."""
        if self._server is not None and _RUNNING.get(self.url) is self:
            del _RUNNING[self.url]
        server, self._server = self._server, None
        self._token = _new_token()
        if server is not None:
            server.close()
        for task in list(self._connections):
            task.cancel()
        if self._connections:
            await asyncio.gather(*self._connections, return_exceptions=True)
        if server is not None:
            await server.wait_closed()
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def __aenter__(self) -> CredentialProxy:
        return await self.start()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.stop()

    def _serves_loop(self, loop: asyncio.AbstractEventLoop) -> bool:
        return self._server is not None and self._loop is loop

    # -- answering, whichever front the request came through -------------------------------

    async def _answer(
        self,
        method: str,
        target: str,
        headers: Sequence[tuple[bytes, bytes]],
        body: AsyncIterator[bytes],
    ) -> _Answer | _Refused:
        """The upstream's answer to one request, or the proxy's own refusal: `body` is
        read only once the request is routed, up to the size limit."""
        token = self._token
        decided = self._route(method, target, headers)
        if isinstance(decided, _Route):
            content = await _gather(body, self._max_request_bytes)
            if isinstance(content, bytes):
                if token != self._token:
                    # Only an in-process request gets here (`stop` cancels the socket's
                    # connections): its body was still coming in when the proxy stopped,
                    # and the token it was let in with is no longer the proxy's.
                    raise httpx2.RemoteProtocolError(
                        "the credential proxy stopped before it answered"
                    )
                return await self._forward(decided, method, headers, content)
            decided = content
        logger.warning(
            "The credential proxy refused {} {}: {}",
            method,
            target.split("?", 1)[0],
            decided.message,
        )
        return _Refused(_provider_of(target), decided)

    def _route(
        self, method: str, target: str, headers: Sequence[tuple[bytes, bytes]]
    ) -> _Route | _Refusal:
        offered = presented_credentials(headers)
        expected = self._token.encode("ascii")
        if not any(hmac.compare_digest(token, expected) for token in offered):
            return _Refusal(401, "authentication_error", "the proxy token is missing or wrong")
        path, _, query = target.partition("?")
        provider = _provider_of(target)
        upstream = None if provider is None else self._upstreams.get(provider)
        suffix = "" if upstream is None else path[len(upstream.prefix) :]
        if upstream is None or not upstream.serves(method, suffix) or not _plain_query(query):
            return _Refusal(404, "not_found_error", f"{method} {path} is not served")
        return _Route(upstream, suffix, query)

    async def _forward(
        self,
        route: _Route,
        method: str,
        headers: Sequence[tuple[bytes, bytes]],
        body: bytes,
    ) -> _Answer | _Refused:
        upstream = route.upstream
        response: httpx2.Response | None = None
        try:
            if self._client is None:  # at the first request: a run that asks no model skips it
                self._client = httpx2.AsyncClient(
                    timeout=self._timeout, follow_redirects=False, verify=_tls_context()
                )
            outgoing = httpx2.Request(
                method,
                upstream.target(route.suffix, route.query),
                headers=forwarded_request_headers(upstream, headers),
                content=body,
            )
            response = await self._client.send(outgoing, stream=True)
            return _Answer(
                response, route=route, method=method, request_body=body, observer=self._observer
            )
        except httpx2.TimeoutException:
            refusal = _Refusal(504, "timeout_error", "the model API did not answer in time")
            return _Refused(upstream.provider, refusal)
        except httpx2.HTTPError as error:
            message = f"the model API could not be reached ({type(error).__name__})"
            return _Refused(upstream.provider, _Refusal(502, "api_error", message))
        except Exception as error:  # a bug, ours or a library's: the client still gets an answer
            if response is not None:
                await response.aclose()
            # Its type only: the message may hold a URL or a header.
            kind = type(error).__name__
            logger.warning(
                "The credential proxy could not forward {} {}{}: {}",
                method,
                upstream.prefix,
                route.suffix,
                kind,
            )
            message = f"it could not forward the request ({kind})"
            return _Refused(upstream.provider, _Refusal(502, "api_error", message))

    # -- the socket front ---------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        self._accepted += 1
        connection = h11.Connection(h11.SERVER)
        try:
            while True:
                event = await _next_event(connection, reader)
                if not isinstance(event, h11.Request):
                    break
                if not await self._exchange(connection, reader, writer, event):
                    break
                if connection.our_state is not h11.DONE or connection.their_state is not h11.DONE:
                    break
                connection.start_next_cycle()
        except h11.RemoteProtocolError as error:
            await _send_plain(connection, writer, error.error_status_hint, "malformed request")
        except (ConnectionError, asyncio.IncompleteReadError, h11.LocalProtocolError):
            pass
        except asyncio.CancelledError:
            # Only `stop` cancels a connection; ending quietly keeps asyncio's stream callback
            # from logging the cancellation as an error.
            pass
        finally:
            if task is not None:
                self._connections.discard(task)
            writer.close()

    async def _exchange(
        self,
        connection: h11.Connection,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: h11.Request,
    ) -> bool:
        """Answer one request; False when the connection must be closed afterwards."""
        method = request.method.decode("ascii", "replace")
        target = request.target.decode("ascii", "replace")
        async with aclosing(_h11_body(connection, reader, writer)) as body:
            outcome = await self._answer(method, target, request.headers, body)
        if isinstance(outcome, _Refused):
            await _send(connection, writer, outcome.status, outcome.body, b"application/json")
            return False
        return await _send_answer(connection, writer, outcome)


# -- the in-process front -------------------------------------------------------------------


def running_proxy(base_url: str) -> CredentialProxy | None:
    """The running proxy of this process that `base_url` (its URL, or a base URL under
    it such as `OPENAI_BASE_URL` as the proxy gave it) points at; None for any other URL."""
    parts = urlsplit(base_url)
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme != "http" or parts.hostname != _HOST or port is None:
        return None
    return _RUNNING.get(f"http://{_HOST}:{port}")


def in_process_transport(base_url: str) -> httpx2.AsyncBaseTransport | None:
    """A transport straight to the proxy `base_url` points at, when that proxy runs in this
    process on the running event loop; None otherwise (the client then uses the socket).

    Call it from the coroutine that will use the client."""
    proxy = running_proxy(base_url)
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    if proxy is None or not proxy._serves_loop(loop):
        return None
    return proxy.transport()


class _InProcessTransport(httpx2.AsyncBaseTransport):
    """Hands each request to the proxy's own answering, as its socket does; the client's
    read timeout applies to the answer's start and to each chunk, as on a socket."""

    def __init__(self, proxy: CredentialProxy) -> None:
        self._proxy = proxy

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        proxy = self._proxy
        origin = f"{request.url.scheme}://{request.url.host}:{request.url.port}"
        if not proxy.running:
            raise httpx2.ConnectError("the credential proxy is not running", request=request)
        if not proxy._serves_loop(asyncio.get_running_loop()):
            # Its upstream pool belongs to the proxy's event loop: used from another one, it
            # would break for every client of the proxy.
            raise httpx2.ConnectError(
                "the credential proxy runs on another event loop", request=request
            )
        if origin != proxy.url:
            raise httpx2.ConnectError(
                f"this transport reaches the credential proxy only, not {origin}", request=request
            )
        read_timeout = _read_timeout(request)
        target = request.url.raw_path.decode("ascii")
        try:
            async with asyncio.timeout(read_timeout), aclosing(_request_body(request)) as body:
                outcome = await proxy._answer(request.method, target, request.headers.raw, body)
        except TimeoutError:
            raise httpx2.ReadTimeout("the credential proxy did not answer in time") from None
        if isinstance(outcome, _Refused):
            return httpx2.Response(
                outcome.status,
                headers=_plain_headers(outcome.body, b"application/json"),
                content=outcome.body,
                request=request,
            )
        return httpx2.Response(
            outcome.status,
            headers=outcome.headers,
            stream=_AnswerStream(outcome, read_timeout),
            extensions={"reason_phrase": outcome.reason},
            request=request,
        )


class _AnswerStream(httpx2.AsyncByteStream):
    """The answer's chunks as they come; an upstream cut raises mid-body."""

    def __init__(self, answer: _Answer, read_timeout: float | None) -> None:
        self._answer = answer
        self._read_timeout = read_timeout

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            while True:
                try:
                    async with asyncio.timeout(self._read_timeout):
                        chunk = await self._answer.read()
                except TimeoutError:
                    raise httpx2.ReadTimeout("the model API stalled mid-answer") from None
                except _UpstreamCutError as cut:
                    raise httpx2.RemoteProtocolError(
                        f"the model API cut its answer ({cut})"
                    ) from cut
                if not chunk:
                    break
                yield chunk
            self._answer.delivered()
        finally:
            await self._answer.aclose()

    async def aclose(self) -> None:
        await self._answer.aclose()


def _read_timeout(request: httpx2.Request) -> float | None:
    timeout = request.extensions.get("timeout")
    read = timeout.get("read") if isinstance(timeout, dict) else None
    return float(read) if isinstance(read, int | float) else None


async def _request_body(request: httpx2.Request) -> AsyncGenerator[bytes]:
    stream = request.stream
    if isinstance(stream, httpx2.AsyncByteStream):
        async for chunk in stream:
            yield chunk
    else:
        for chunk in stream:
            yield chunk


# -- shared pieces ----------------------------------------------------------------------------


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The trusted certificates every proxy of this process checks its upstream with (the
    system's, or SSL_CERT_FILE / SSL_CERT_DIR), read from disk once: tens of milliseconds."""
    return httpx2.create_ssl_context()


async def _gather(chunks: AsyncIterator[bytes], limit: int) -> bytes | _Refusal:
    """The request body, or a 413 refusal once it passes `limit` bytes."""
    received: list[bytes] = []
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            return _Refusal(413, "request_too_large", "the request body is too large")
        received.append(chunk)
    return b"".join(received)


def _new_token() -> str:
    return _TOKEN_PREFIX + secrets.token_urlsafe(32)


def _provider_of(target: str) -> Provider | None:
    path = target.split("?", 1)[0]
    for provider in _PROVIDERS:
        if path.startswith(f"/{provider}/"):
            return provider
    return None


def _plain_query(query: str) -> bool:
    return all(0x21 <= ord(char) <= 0x7E and char != "#" for char in query)


def _error_body(provider: Provider | None, refusal: _Refusal) -> bytes:
    if provider == "anthropic":
        payload: dict[str, object] = {
            "type": "error",
            "error": {
                "type": refusal.kind,
                "message": f"amelia credential proxy: {refusal.message}",
            },
        }
    else:
        code = "invalid_api_key" if refusal.status == 401 else None
        payload = {
            "error": {
                "message": f"amelia credential proxy: {refusal.message}",
                "type": refusal.kind,
                "param": None,
                "code": code,
            }
        }
    return json.dumps(payload).encode()


def _plain_headers(body: bytes, content_type: bytes) -> list[tuple[bytes, bytes]]:
    """The headers of an answer the proxy gives itself (the connection ends with it)."""
    return [
        (b"content-type", content_type),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]


# -- h11 on the socket --------------------------------------------------------------------------


async def _next_event(connection: h11.Connection, reader: asyncio.StreamReader) -> object:
    while True:
        event = connection.next_event()
        if event is not h11.NEED_DATA:
            return event
        data = await reader.read(_READ_CHUNK)
        connection.receive_data(data)


async def _h11_body(
    connection: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> AsyncGenerator[bytes]:
    """The request body as it arrives; a client waiting for `100 Continue` gets it first
    (only for a routed request: its body is read only then)."""
    if connection.they_are_waiting_for_100_continue:
        writer.write(connection.send(h11.InformationalResponse(status_code=100, headers=[])) or b"")
    while True:
        event = await _next_event(connection, reader)
        if isinstance(event, h11.Data):
            yield bytes(event.data)
        elif isinstance(event, h11.EndOfMessage):
            return
        else:
            raise ConnectionResetError("the client closed the connection mid-request")


async def _send_answer(
    connection: h11.Connection, writer: asyncio.StreamWriter, answer: _Answer
) -> bool:
    """Pass the answer on chunk by chunk; False when the connection was cut."""
    try:
        writer.write(
            connection.send(
                h11.Response(
                    status_code=answer.status, headers=answer.headers, reason=answer.reason
                )
            )
            or b""
        )
        while chunk := await answer.read():
            writer.write(connection.send(h11.Data(data=chunk)) or b"")
            await writer.drain()
        writer.write(connection.send(h11.EndOfMessage()) or b"")
        await writer.drain()
        answer.delivered()
    except (_UpstreamCutError, h11.LocalProtocolError):
        # Cut upstream (or it broke its own framing): cut the client's answer too, so it
        # sees an incomplete body rather than a clean end.
        writer.transport.abort()
        return False
    finally:
        await answer.aclose()
    return True


async def _send_plain(
    connection: h11.Connection, writer: asyncio.StreamWriter, status: int, message: str
) -> None:
    if connection.our_state not in (h11.IDLE, h11.SEND_RESPONSE):
        return
    await _send(connection, writer, status, message.encode(), b"text/plain")


async def _send(
    connection: h11.Connection,
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    content_type: bytes,
) -> None:
    try:
        headers = _plain_headers(body, content_type)
        writer.write(connection.send(h11.Response(status_code=status, headers=headers)) or b"")
        writer.write(connection.send(h11.Data(data=body)) or b"")
        writer.write(connection.send(h11.EndOfMessage()) or b"")
        await writer.drain()
    except (ConnectionError, h11.LocalProtocolError):
        return
