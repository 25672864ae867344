"""The HTTP server every local stand-in runs on (GitHub, the Anthropic and OpenAI APIs):
127.0.0.1, an ephemeral port, a daemon thread, room for many clients connecting at once,
and a stop that returns promptly."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

__all__ = ["LocalServer", "QuietHandler"]

_POLL_SECONDS = 0.05
"""How often the serving thread looks for `stop()`: short, so every test's teardown is fast."""


class _Server(ThreadingHTTPServer):
    """Up to 128 connections wait to be accepted (socketserver's default is 5): when more
    clients connect at once than that, the kernel drops the others' first SYN and each of
    them connects only when it sends it again, a second later."""

    request_queue_size = 128
    daemon_threads = True


class QuietHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive, and no access log: tests show assertions, and the stand-ins
    record their requests themselves.

    Each connection sends at once (TCP_NODELAY): a handler writes its headers and its body
    (or each event of a stream) separately, and Nagle's algorithm would hold every write
    after the first until the client acknowledged the one before, which a client delays
    by 40 ms, so each request to a stand-in took 45 ms instead of one."""

    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Nothing goes to stderr."""


class LocalServer:
    """`handler` served on 127.0.0.1 from a daemon thread; a context manager. The port is
    bound on first use (`url`, `port` or `start()`), so a server never started holds no
    socket, and it stays the server's `port` after `stop()` (nothing answers there then).
    Each stand-in is one of these, with its handler bound to it."""

    def __init__(self, handler: type[BaseHTTPRequestHandler], *, name: str) -> None:
        self._handler = handler
        self._name = name
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None

    def _bound(self) -> ThreadingHTTPServer:
        if self._httpd is None:
            self._httpd = _Server(("127.0.0.1", 0), self._handler)
            self._port = int(self._httpd.server_address[1])
        return self._httpd

    @property
    def port(self) -> int:
        if self._port is None:
            self._bound()
        assert self._port is not None
        return self._port

    @property
    def url(self) -> str:
        """`http://127.0.0.1:<port>`, no trailing slash."""
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> Self:
        """Serve from a daemon thread (once; starting again changes nothing)."""
        httpd = self._bound()
        if self._thread is None:
            self._thread = threading.Thread(
                target=httpd.serve_forever,
                kwargs={"poll_interval": _POLL_SECONDS},
                name=self._name,
                daemon=True,
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and free the port; a later `start()` binds another one."""
        if self._httpd is None:
            return
        if self._thread is not None:
            self._httpd.shutdown()
            self._thread.join(timeout=10)
            self._thread = None
        self._httpd.server_close()
        self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
