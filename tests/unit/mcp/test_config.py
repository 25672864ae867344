"""`mcp:` of `.github/amelia.yml`: servers by name (a command or a URL), values from named
secrets or inputs, per agent which tools; a secret written in the file is refused with one
line saying where and what to write instead."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.errors import EXIT_BAD_INPUT, exit_code_for
from amelia.mcp.config import McpConfig, ValueReference, looks_like_a_token
from amelia.repo_config import RepoConfigError, parse_repo_config

EXAMPLE = b"""
mcp:
  servers:
    docs:
      command: python3
      args: [-m, docs_server, --region, eu]
      env:
        DOCS_API_KEY: {secret: DOCS_API_KEY}
        DOCS_REGION: eu
    tracker:
      url: https://mcp.tracker.example/mcp
      headers:
        Authorization: {secret: TRACKER_TOKEN, prefix: "Bearer "}
        X-Tracker-Project: amelia
      tool_timeout_seconds: 60
    github:
      url: https://api.githubcopilot.com/mcp/
      headers:
        Authorization: {input: github_token, prefix: "Bearer "}
    unused:
      command: unused-server
  agents:
    architect: {docs: all}
    developer: {docs: all, tracker: [search_issues, get_issue]}
    reviewer: {docs: [lookup]}
    answerer: {github: all}
"""


def problem(text: str) -> str:
    with pytest.raises(RepoConfigError) as raised:
        parse_repo_config(text.encode())
    assert exit_code_for(raised.value) == EXIT_BAD_INPUT
    assert "\n" not in raised.value.message
    return raised.value.message


def test_the_documented_keys_are_read() -> None:
    config = parse_repo_config(EXAMPLE).mcp
    docs, tracker = config.servers["docs"], config.servers["tracker"]
    assert (docs.transport, tracker.transport) == ("stdio", "http")
    assert docs.command == "python3" and docs.args == ("-m", "docs_server", "--region", "eu")
    assert docs.env == {"DOCS_API_KEY": ValueReference(secret="DOCS_API_KEY"), "DOCS_REGION": "eu"}
    assert tracker.headers["Authorization"] == ValueReference(
        secret="TRACKER_TOKEN", prefix="Bearer "
    )
    assert config.servers["github"].headers["Authorization"] == ValueReference(
        input="github_token", prefix="Bearer "
    )
    assert (docs.startup_timeout_seconds, tracker.tool_timeout_seconds) == (60.0, 60.0)
    assert config.agents.developer == {"docs": "all", "tracker": ("search_issues", "get_issue")}
    assert config.agents.of("reviewer") == {"docs": ("lookup",)}
    # Only servers some agent gets are started.
    assert list(config.used()) == ["docs", "tracker", "github"]


def test_no_section_means_no_server_and_no_tool() -> None:
    config = parse_repo_config(b"instructions: hi\n").mcp
    assert config == McpConfig() and config.used() == {}


@pytest.mark.parametrize(
    ("server", "where"),
    [
        ("{command: x, env: {DOCS_API_KEY: abc123}}", "env.DOCS_API_KEY"),
        ("{command: x, env: {GH_TOKEN: whatever-it-is}}", "env.GH_TOKEN"),
        (
            "{command: x, env: {ENDPOINT_HINT: ghp_abcdefghijklmnopqrstuvwxyz0123}}",
            "env.ENDPOINT_HINT",
        ),
        (
            "{url: 'https://x.example/mcp', headers: {Authorization: 'Bearer abcdefgh'}}",
            "headers.Authorization",
        ),
        ("{url: 'https://x.example/mcp', headers: {X-Api-Key: plain}}", "headers.X-Api-Key"),
        ("{url: 'https://x.example/mcp', headers: {Cookie: session=1}}", "headers.Cookie"),
    ],
)
def test_a_secret_written_in_the_file_is_refused(server: str, where: str) -> None:
    message = problem(f"mcp:\n  servers:\n    docs: {server}\n")
    for written in ("abc123", "whatever-it-is", "ghp_", "abcdefgh", "plain", "session=1"):
        assert written not in message
    assert message == (
        f".github/amelia.yml: mcp.servers.docs: Value error, {where} holds a secret written in "
        "the file: write {secret: NAME} instead and pass NAME=value in the mcp_secrets input "
        "(see docs/configuration.md#mcp-servers)"
    )


def test_a_secret_in_a_command_line_or_url_is_refused() -> None:
    argument = problem(
        "mcp:\n  servers:\n    docs: {command: x, args: [--key, sk-ant-api03-abcdefghijklmnop]}\n"
    )
    assert "args[1] looks like a secret: every process can read a command line" in argument
    assert "sk-ant" not in argument.split("(got", 1)[0]
    for url in (
        "https://user:pass@x.example/mcp",
        "https://x.example/mcp?key=ghp_abcdefghijklmnopqrstuvwxyz0123",
    ):
        assert "`url` must not carry credentials" in problem(
            f"mcp:\n  servers:\n    docs: {{url: '{url}'}}\n"
        )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("servers: {docs: {command: x, url: 'https://x.example'}}", "give either `command`"),
        ("servers: {docs: {}}", "give either `command`"),
        ("servers: {docs: {url: 'http://x.example/mcp'}}", "plain http only to this machine"),
        ("servers: {docs: {url: 'ftp://x.example/mcp'}}", "`url` must be an https:// URL"),
        ("servers: {docs: {command: x, headers: {A: b}}}", "`headers` go with `url`"),
        ("servers: {docs: {url: 'https://x.example', env: {A: b}}}", "`args` and `env` go with"),
        ("servers: {docs: {command: x, env: {A: {secret: X, input: y}}}}", "exactly one of"),
        ("servers: {docs: {command: x, env: {A: {secrt: X}}}}", "unknown key 'secrt'"),
        ("servers: {docs: {command: x, env: {A: 3}}}", "must be text, {secret: NAME} or"),
        ("servers: {docs: {command: x, env: {A: {secret: 'two words'}}}}", "a variable name"),
        ("servers: {Docs: {command: x}}", "lower-case letters"),
        ("servers: {a__b: {command: x}}", "without '__'"),
        (
            "servers: {docs: {command: x}}\nagents: {developer: {tracker: all}}",
            "agents.developer.tracker: no server",
        ),
        (
            "servers: {docs: {command: x}}\nagents: {tester: {docs: all}}",
            "agents.tester: unknown key",
        ),
        (
            "servers: {docs: {command: x}}\nagents: {developer: {docs: some}}",
            "agents.developer.docs",
        ),
        ("servers: {docs: {command: x, startup_timeout_seconds: 0}}", "startup_timeout_seconds"),
        ("servers: {docs: {command: x, colour: red}}", "mcp.servers.docs.colour: unknown key"),
    ],
)
def test_mistakes_name_the_key(text: str, expected: str) -> None:
    indented = "\n".join(f"  {line}" for line in text.splitlines())
    message = problem(f"mcp:\n{indented}\n")
    assert message.startswith(".github/amelia.yml: mcp")
    assert expected in message


def test_token_formats_are_recognised() -> None:
    assert looks_like_a_token("ghp_abcdefghijklmnopqrstuvwxyz0123")
    assert looks_like_a_token("Bearer abcdefgh12345")
    assert not looks_like_a_token("eu-west-1")
    assert not looks_like_a_token("--region")


def test_the_example_of_the_docs_is_valid() -> None:
    docs = (Path(__file__).resolve().parents[3] / "docs" / "configuration.md").read_text()
    section = docs.split("## MCP servers", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    config = parse_repo_config(example.encode()).mcp
    fetch, context7 = config.servers["fetch"], config.servers["context7"]
    assert fetch.command == "sh" and "mcp_server_fetch" in fetch.args[1]
    assert context7.headers == {"CONTEXT7_API_KEY": ValueReference(secret="CONTEXT7_API_KEY")}
    assert list(config.used()) == ["fetch", "context7"]
