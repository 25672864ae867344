"""LocalServer: what every stand-in runs on."""

from __future__ import annotations

import socket
import urllib.error
import urllib.request

import pytest

from amelia.testing.local_server import LocalServer, QuietHandler


class _Hello(QuietHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "5")
        self.end_headers()
        self.wfile.write(b"hello")


def test_serves_until_stopped_and_keeps_its_address() -> None:
    server = LocalServer(_Hello, name="hello")
    url = server.url
    with server:
        with urllib.request.urlopen(url, timeout=5) as response:
            assert response.read() == b"hello"
        assert server.start() is server  # a second start changes nothing
    assert server.url == url
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(url, timeout=5)


class _Delay(QuietHandler):
    """Answers whether its connection sends without Nagle's delay (TCP_NODELAY)."""

    def do_GET(self) -> None:
        nodelay = self.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        body = str(nodelay).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def test_every_connection_sends_its_writes_at_once() -> None:
    with (
        LocalServer(_Delay, name="delay") as server,
        urllib.request.urlopen(server.url, timeout=5) as response,
    ):
        assert response.read() == b"1"
