"""git's smart HTTP protocol for the local GitHub, through `git http-backend`.

A repository registered with a bare repository is served at `<url>/<owner>/<name>` (what
`GITHUB_SERVER_URL/<repo>` names on a runner), so the bare repository's hooks run as
GitHub's rules would: anyone may fetch, and a push needs the repository's `git_token` as
the password of HTTP basic auth (`x-access-token:<token>`, as actions/checkout sends it);
without it the answer is 401. A push made with a token whose pushes start workflows (not the
job's token) starts the workflows that run on it (`GitHubState.branch_pushed`).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs

from amelia.errors import GitError
from amelia.git import run_git, run_git_service
from amelia.testing.github.state import GitHubState

__all__ = ["GIT_ROUTE", "GitAnswer", "GitRequest", "answer_git", "basic_password"]

GIT_ROUTE = re.compile(
    r"/(?P<owner>[^/]+)/(?P<name>[^/]+?)(?:\.git)?/(?P<rest>info/refs|git-upload-pack|git-receive-pack)"
)
"""The paths of git's smart HTTP protocol below the server's root."""
_GIT_SERVICES = ("git-upload-pack", "git-receive-pack")
_TEXT = ("Content-Type", "text/plain")


@dataclass(frozen=True)
class GitRequest:
    """One request of git's smart HTTP protocol: which service, and whether it carried the
    repository's token."""

    method: str
    path: str
    service: str
    authenticated: bool


class GitAnswer(NamedTuple):
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    request: GitRequest | None
    """What to record (None: not a request of a served repository's services)."""


def basic_password(authorization: str) -> str | None:
    """The password of an HTTP basic `Authorization` header (any scheme spelling)."""
    scheme, _space, encoded = authorization.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return decoded.partition(":")[2] or None


def _cgi_response(output: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Status, headers and body of a CGI program's output."""
    head, _blank, body = output.partition(b"\r\n\r\n")
    status = 200
    headers: list[tuple[str, str]] = []
    for line in head.decode("latin-1").split("\r\n"):
        name, _colon, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers.append((name, value.strip()))
    return status, headers, body


def _branch_heads(bare: Path) -> dict[str, str]:
    listed = run_git(
        [
            "--git-dir",
            str(bare),
            "for-each-ref",
            "--format=%(refname:short) %(objectname)",
            "refs/heads",
        ],
        None,
    )
    return dict(line.split(" ", 1) for line in listed.splitlines() if " " in line)


def answer_git(
    state: GitHubState,
    *,
    method: str,
    route: re.Match[str],
    query: str,
    headers: Message,
    body: bytes,
) -> GitAnswer:
    """The answer to one request of git's smart HTTP protocol (`route` matched
    `GIT_ROUTE`), from the repository's bare clone."""
    with state.lock:
        repository = state.repositories.get(f"{route['owner']}/{route['name']}".lower())
    rest = route["rest"]
    service = parse_qs(query).get("service", [""])[0] if rest == "info/refs" else rest
    if repository is None or repository.bare_path is None or service not in _GIT_SERVICES:
        return GitAnswer(404, [_TEXT], b"Repository not found.\n", None)
    password = basic_password(headers.get("Authorization") or "")
    authenticated = repository.git_token is not None and password == repository.git_token
    seen = GitRequest(method, route.group(0), service, authenticated)
    if service == "git-receive-pack" and not authenticated:
        refusal = b"Invalid username or token. Password authentication is not supported.\n"
        return GitAnswer(401, [("WWW-Authenticate", 'Basic realm="GitHub"'), _TEXT], refusal, seen)
    environment = {
        "REQUEST_METHOD": method,
        "QUERY_STRING": query,
        "PATH_INFO": f"/{rest}",
        "PATH_TRANSLATED": f"{repository.bare_path}/{rest}",
        "CONTENT_TYPE": headers.get("Content-Type") or "",
        "GIT_HTTP_EXPORT_ALL": "1",
        "REMOTE_ADDR": "127.0.0.1",
        **({"REMOTE_USER": "x-access-token"} if authenticated else {}),
        **{
            variable: str(headers[header])
            for header, variable in (
                ("Content-Encoding", "HTTP_CONTENT_ENCODING"),
                ("Git-Protocol", "GIT_PROTOCOL"),
            )
            if headers.get(header)
        },
    }
    pushing = service == "git-receive-pack" and rest == "git-receive-pack"
    before = _branch_heads(repository.bare_path) if pushing else {}
    try:
        output = run_git_service(["http-backend"], environment=environment, input=body)
    except GitError as error:
        return GitAnswer(500, [_TEXT], error.message.encode(), seen)
    if pushing:
        for branch, sha in _branch_heads(repository.bare_path).items():
            if before.get(branch) != sha:
                state.branch_pushed(repository.full_name, branch, sha)
    status, answer_headers, payload = _cgi_response(output)
    return GitAnswer(status, answer_headers, payload, seen)
