"""The `mcp` section of `.github/amelia.yml`, as pydantic models.

    mcp:
      servers:
        docs:                                   # a command with arguments (stdio)
          command: python3
          args: [-m, docs_server]
          env:
            DOCS_API_KEY: {secret: DOCS_API_KEY}   # the value of a named secret
            DOCS_REGION: eu                       # a plain value may be written here
        tracker:                                # a URL (streamable HTTP)
          url: https://mcp.tracker.example/mcp
          headers:
            Authorization: {secret: TRACKER_TOKEN, prefix: "Bearer "}
      agents:
        developer: {docs: all, tracker: [search_issues]}
        reviewer: {docs: [lookup]}

A value that holds a credential is never written in the file: an `env` variable or a
header whose name says it holds one (`*_TOKEN`, `*_API_KEY`, `Authorization`, …), and any
value, argument or URL that looks like a token, is refused with one line saying where and
what to write instead. Arguments and URLs cannot take secrets at all: every process can
read another's command line.

No agent gets a server's tools unless `agents` lists them; the reviewer of a fork's pull
request gets none, whatever the file says (its drivers run with the `read_files` profile,
which never has MCP tools).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    model_validator,
)

from amelia.core.types import AgentRole
from amelia.redaction import Redactor, is_secret_name

__all__ = [
    "DEFAULT_STARTUP_TIMEOUT_SECONDS",
    "DEFAULT_TOOL_TIMEOUT_SECONDS",
    "MAX_SERVERS",
    "McpAgents",
    "McpConfig",
    "McpServer",
    "ToolChoice",
    "ValueReference",
    "looks_like_a_token",
]

MAX_SERVERS = 16
DEFAULT_STARTUP_TIMEOUT_SECONDS = 60.0
"""How long a server may take to start and list its tools (a package install included)."""
DEFAULT_TOOL_TIMEOUT_SECONDS = 300.0
"""How long one tool call may take before its result is an error."""

_SERVER_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,31}$")
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")
_INPUT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_HEADER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
_TOOL = re.compile(r"^[A-Za-z0-9_.:/-]{1,128}$")
_SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-auth-token"}
)
_DETECTOR = Redactor()
_SEE = "see docs/configuration.md#mcp-servers"


def looks_like_a_token(text: str) -> bool:
    """Whether `text` holds something of a known credential format (`ghp_…`, `sk-…`, a
    JWT, a bearer token, a private key, a URL with a password)."""
    return _DETECTOR.redact(text) != text


def _server_name(value: str) -> str:
    if not _SERVER_NAME.match(value) or "__" in value:
        raise ValueError(
            "must be 1 to 32 lower-case letters, digits, '-' or '_', starting with a letter, "
            "without '__'"
        )
    return value


def _tool_name(value: str) -> str:
    if not _TOOL.match(value):
        raise ValueError("must be a tool name as the server lists it")
    return value


ServerName = Annotated[str, AfterValidator(_server_name)]
ToolName = Annotated[str, AfterValidator(_tool_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ValueReference(_Strict):
    """A value amelia fills in at run time: a named secret, or one of the Action's inputs,
    after `prefix` (e.g. `Bearer `)."""

    secret: str | None = None
    """A name of the `mcp_secrets` input (`NAME=value` lines), else a variable of the
    step's environment whose name marks it as a credential (`*_TOKEN`, `*_API_KEY`, …)."""
    input: str | None = None
    """An input of the Action by its name, e.g. `github_token`."""
    prefix: str = Field(default="", max_length=64)

    @model_validator(mode="after")
    def _one_source(self) -> ValueReference:
        if (self.secret is None) == (self.input is None):
            raise ValueError("name exactly one of `secret` or `input`")
        if self.secret is not None and not _VARIABLE.match(self.secret):
            raise ValueError("`secret` must be a variable name such as DOCS_API_KEY")
        if self.input is not None and not _INPUT.match(self.input):
            raise ValueError("`input` must be an input's name such as github_token")
        if not self.prefix.isprintable() or looks_like_a_token(self.prefix):
            raise ValueError("`prefix` must be plain text such as 'Bearer '")
        return self


def _value(value: Any) -> str | ValueReference:
    if isinstance(value, str | ValueReference):
        return value
    if not isinstance(value, dict):
        raise ValueError("must be text, {secret: NAME} or {input: name}")
    try:
        return ValueReference.model_validate(value)
    except ValidationError as error:
        problems = "; ".join(
            str(problem["msg"]).removeprefix("Value error, ")
            if problem["type"] != "extra_forbidden"
            else f"unknown key {problem['loc'][-1]!r}"
            for problem in error.errors()
        )
        raise ValueError(f"{problems} (write {{secret: NAME}} or {{input: name}})") from None


Value = Annotated[str | ValueReference, PlainValidator(_value)]
"""A plain value written in the file, or `{secret: NAME}` / `{input: name}`."""


ToolChoice = Literal["all"] | tuple[ToolName, ...]
"""`all` of a server's tools, or the listed ones."""


def _refuse_written_secret(where: str, name: str, value: str, *, named_secret: bool) -> None:
    if named_secret or looks_like_a_token(value):
        raise ValueError(
            f"{where}.{name} holds a secret written in the file: write "
            f"{{secret: NAME}} instead and pass NAME=value in the mcp_secrets input ({_SEE})"
        )


class McpServer(_Strict):
    """One MCP server: `command` (with `args` and `env`) that amelia starts, or `url` (with
    `headers`) that amelia connects to."""

    command: str | None = Field(default=None, min_length=1, max_length=1_000)
    args: tuple[Annotated[str, Field(max_length=4_000)], ...] = Field(default=(), max_length=100)
    env: dict[str, Value] = Field(default_factory=dict, max_length=50)
    url: str | None = Field(default=None, min_length=1, max_length=2_000)
    headers: dict[str, Value] = Field(default_factory=dict, max_length=20)
    startup_timeout_seconds: float = Field(
        default=DEFAULT_STARTUP_TIMEOUT_SECONDS, gt=0, le=600, allow_inf_nan=False
    )
    tool_timeout_seconds: float = Field(
        default=DEFAULT_TOOL_TIMEOUT_SECONDS, gt=0, le=3_600, allow_inf_nan=False
    )

    @model_validator(mode="after")
    def _one_transport(self) -> McpServer:
        if (self.command is None) == (self.url is None):
            raise ValueError("give either `command` (a program amelia starts) or `url`, not both")
        if self.command is not None:
            if self.headers:
                raise ValueError("`headers` go with `url`; a command gets `env`")
            self._check_command()
        else:
            if self.args or self.env:
                raise ValueError("`args` and `env` go with `command`; a URL gets `headers`")
            self._check_url()
        return self

    def _check_command(self) -> None:
        assert self.command is not None
        for index, argument in enumerate((self.command, *self.args)):
            if looks_like_a_token(argument):
                where = "command" if index == 0 else f"args[{index - 1}]"
                raise ValueError(
                    f"{where} looks like a secret: every process can read a command line, so "
                    f"pass secrets in `env` as {{secret: NAME}} ({_SEE})"
                )
        for name, value in self.env.items():
            if not _VARIABLE.match(name):
                raise ValueError(f"env.{name}: not a variable name")
            if isinstance(value, str):
                _refuse_written_secret("env", name, value, named_secret=is_secret_name(name))

    def _check_url(self) -> None:
        assert self.url is not None
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        if parts.scheme not in ("https", "http") or not host:
            raise ValueError("`url` must be an https:// URL")
        if parts.scheme == "http" and host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("`url` must be https:// (plain http only to this machine)")
        if parts.username or parts.password or looks_like_a_token(self.url):
            raise ValueError(
                "`url` must not carry credentials: pass them in `headers` as "
                f"{{secret: NAME}} ({_SEE})"
            )
        for name, value in self.headers.items():
            if not _HEADER.match(name):
                raise ValueError(f"headers.{name}: not a header name")
            if isinstance(value, str):
                secret = name.lower() in _SECRET_HEADERS or is_secret_name(name.replace("-", "_"))
                _refuse_written_secret("headers", name, value, named_secret=secret)

    @property
    def transport(self) -> Literal["stdio", "http"]:
        return "stdio" if self.command is not None else "http"


class McpAgents(_Strict):
    """Per agent, the servers it gets and which of their tools."""

    architect: dict[ServerName, ToolChoice] = Field(default_factory=dict)
    developer: dict[ServerName, ToolChoice] = Field(default_factory=dict)
    reviewer: dict[ServerName, ToolChoice] = Field(default_factory=dict)
    """Never for a fork's pull request, whatever is listed here."""
    answerer: dict[ServerName, ToolChoice] = Field(default_factory=dict)

    def of(self, role: AgentRole) -> dict[str, ToolChoice]:
        chosen: dict[str, ToolChoice] = getattr(self, role)
        return chosen


class McpConfig(_Strict):
    """`mcp:` of `.github/amelia.yml` (missing: no server, no tool)."""

    servers: dict[ServerName, McpServer] = Field(default_factory=dict, max_length=MAX_SERVERS)
    agents: McpAgents = Field(default_factory=McpAgents)

    @model_validator(mode="after")
    def _known_servers(self) -> McpConfig:
        for role in McpAgents.model_fields:
            for name in getattr(self.agents, role):
                if name not in self.servers:
                    raise ValueError(f"agents.{role}.{name}: no server of that name in `servers`")
        return self

    def used(self) -> dict[str, McpServer]:
        """The servers some agent gets tools of, in the file's order: the ones a run starts."""
        granted = {name for role in McpAgents.model_fields for name in getattr(self.agents, role)}
        return {name: server for name, server in self.servers.items() if name in granted}
