"""The model APIs of a replay: recorded answers served on 127.0.0.1, in order.

    with ModelReplayServer(recording.exchanges, paths=[…]) as server:
        environ["ANTHROPIC_BASE_URL"] = server.base_url("anthropic")

Each request is matched with the first recorded exchange not served yet of the same
provider and path whose request is the same (`amelia.replay.exchanges.normalized`), and
gets its recorded answer: status, content type and body, with the recorded checkout's path
replaced by this one's (a model names files by absolute path). The first request
that matches none is a divergence: it is answered 400 in the API's error shape, and
`divergence` says which recorded request it should have been (agent, turn) and how it
differs; every later request is refused the same way.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Final

from amelia.redaction import Redactor
from amelia.replay.exchanges import agent_of, normalized, request_diff, turn_of
from amelia.replay.format import ModelExchange
from amelia.replay.streams import path_moved

__all__ = ["Divergence", "ModelReplayServer"]

_PROVIDERS: Final = ("anthropic", "openai", "openrouter")


@dataclass(frozen=True, kw_only=True)
class Divergence:
    """The first request of a replay the recording has no answer for."""

    index: int
    """The recorded exchange it should have been (1-based), 0 when all were served."""
    agent: str
    turn: int
    diff: str

    def describe(self) -> str:
        if self.index == 0:
            head = (
                f"the replay diverges: {self.agent} sent a request (turn {self.turn}) after "
                "every recorded request was answered"
            )
            return f"{head}\n{self.diff}" if self.diff else head
        return (
            f"the replay diverges at model request {self.index}: {self.agent}, turn "
            f"{self.turn}, asked something else than in the recorded run:\n{self.diff}"
        )


class _Matcher:
    def __init__(self, exchanges: Sequence[ModelExchange], paths: Iterable[str]) -> None:
        self._paths = tuple(paths)
        self._exchanges = list(exchanges)
        self._normalized = [normalized(e.request, paths=self._paths) for e in exchanges]
        self._served = [False] * len(exchanges)
        self._redactor = Redactor()
        self._lock = threading.Lock()
        self.divergence: Divergence | None = None
        self.served = 0

    def answer(self, provider: str, path: str, body: str) -> ModelExchange | Divergence:
        # The recording is masked: mask the token formats it masked in this request too.
        request = normalized(self._redactor.redact(body), paths=self._paths)
        with self._lock:
            if self.divergence is not None:
                return self.divergence
            waiting = [
                i
                for i, e in enumerate(self._exchanges)
                if not self._served[i] and e.provider == provider and e.path == path
            ]
            for i in waiting:
                if self._normalized[i] == request:
                    self._served[i] = True
                    self.served += 1
                    return self._exchanges[i]
            agent, turn = agent_of(body), turn_of(body)
            same_agent = [i for i in waiting if self._exchanges[i].agent == agent]
            candidates = same_agent or waiting
            if not candidates:
                self.divergence = Divergence(index=0, agent=agent, turn=turn, diff="")
            else:
                expected = candidates[0]
                recorded = self._exchanges[expected]
                self.divergence = Divergence(
                    index=recorded.index,
                    agent=recorded.agent,
                    turn=recorded.turn,
                    diff=request_diff(self._normalized[expected], request),
                )
            return self.divergence

    def unserved(self) -> list[ModelExchange]:
        return [e for e, served in zip(self._exchanges, self._served, strict=True) if not served]


def _error_body(provider: str, message: str) -> bytes:
    if provider == "anthropic":
        payload: dict[str, object] = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
        }
    else:
        payload = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return json.dumps(payload).encode()


class ModelReplayServer:
    """Serves `exchanges` on 127.0.0.1 while the context lasts (see the module docstring)."""

    def __init__(
        self,
        exchanges: Sequence[ModelExchange],
        *,
        paths: Iterable[str] = (),
        moved: tuple[str, str] | None = None,
    ) -> None:
        """`paths` are set aside when requests are compared; `moved` is (the recorded
        checkout's path, this one's): answers name files in this checkout instead."""
        self._matcher = _Matcher(exchanges, paths)
        matcher = self._matcher

        def answer_text(text: str) -> str:
            if moved is None or moved[0] in ("", "/", moved[1]):
                return text
            return path_moved(text, *moved)

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace")
                provider, _, rest = self.path.lstrip("/").partition("/")
                path = "/" + rest.split("?", 1)[0]
                if provider not in _PROVIDERS:
                    self._send(404, "application/json", b'{"error": "not served"}')
                    return
                found = matcher.answer(provider, path, body)
                if isinstance(found, Divergence):
                    # Its headline only: the client logs it in several places, and the
                    # replay's report shows the difference once at the end.
                    headline = found.describe().splitlines()[0].rstrip(":")
                    message = f"amelia replay: {headline} (the replay's report shows how)"
                    self._send(400, "application/json", _error_body(provider, message))
                    return
                kind = dict(found.headers).get("content-type", "application/json")
                self._send(found.status, kind, answer_text(found.response).encode("utf-8"))

            def _send(self, status: int, kind: str, data: bytes) -> None:
                self.send_response(status)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def base_url(self, provider: str) -> str:
        """What a model client of `provider` is pointed at (the proxy's upstream)."""
        return f"{self.url}/{provider}"

    @property
    def divergence(self) -> Divergence | None:
        return self._matcher.divergence

    @property
    def served(self) -> int:
        return self._matcher.served

    def unserved(self) -> list[ModelExchange]:
        """The recorded exchanges the replay never asked for."""
        return self._matcher.unserved()

    def start(self) -> ModelReplayServer:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> ModelReplayServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
