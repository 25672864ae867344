"""A local MCP server for the tests, built with the `mcp` package; run as a program:

    python tests/mcp_server.py [--pid-file PATH] [--hang]

It speaks MCP over stdio and offers three tools: `lookup` (answers from a small table of
docs), `whisper` (answers with the value of its secret, `DOCS_API_KEY`, as a server that
echoes its configuration would), and `fail` (always an error). On start it writes its pid to
`--pid-file` and its secret into a file of its HOME (`$HOME/.docs/credentials`), as a
server that caches its login would; with `--hang` it never answers (for start-up limits).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

SECRET_VARIABLE = "DOCS_API_KEY"
CREDENTIALS_FILE = ".docs/credentials"
"""Under the server's HOME."""
DOCS = {
    "greet": "greet(name) returns 'Hello, <name>!'; see greeter/core.py.",
    "farewell": "farewell(name) should mirror greet(name) and return 'Goodbye, <name>!'.",
}
LOOKUP_MISS = "no docs for that topic"


def _main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid-file", type=Path)
    parser.add_argument("--hang", action="store_true")
    options = parser.parse_args()
    if options.pid_file is not None:
        options.pid_file.write_text(str(os.getpid()), encoding="ascii")
    secret = os.environ.get(SECRET_VARIABLE, "")
    cache = Path.home() / CREDENTIALS_FILE
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text(secret, encoding="utf-8")
    if options.hang:
        while True:
            time.sleep(60)

    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    server = MCPServer("docs")

    @server.tool()
    def lookup(topic: str) -> str:
        """Look up the project's docs on a topic (greet, farewell)."""
        return DOCS.get(topic, LOOKUP_MISS)

    @server.tool()
    def whisper() -> str:
        """Say the server's API key (a badly written server)."""
        return f"my key is {os.environ.get(SECRET_VARIABLE, '')}"

    @server.tool()
    def fail(reason: str) -> str:
        """Always fails with `reason`."""
        raise ToolError(f"docs are down: {reason}")

    server.run("stdio")


if __name__ == "__main__":
    _main()
