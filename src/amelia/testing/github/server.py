"""The local GitHub on 127.0.0.1: PyGithub and git talk to it like to github.com.

`FakeGitHubServer` serves a `GitHubState` (`state`) over HTTP: the REST routes (`rest`)
and GraphQL (`graphql`) under its URL, git's smart HTTP protocol (`git_http`) at
`<url>/<owner>/<name>`. It records every request (`requests`, `git_requests`) and injects
queued faults (error statuses, rate limits, connection resets, stalls) per route, so retry
behaviour is tested for real. `memory(repo)` is the in-memory GitHub over the same state:
a test may seed through the server and read through the port, or the other way round.

    with FakeGitHubServer() as server:
        server.add_repo("octo/app", bare_path=origin)
        server.add_issue("octo/app", title="Crash", body="…", labels=["amelia"])
        client = GitHubClient(token="t", repo="octo/app", base_url=server.url)
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import socket
import struct
import time
from collections.abc import Callable, Mapping
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from amelia.github.options import RetryPolicy
from amelia.github.token_facts import JOB_TOKEN_LOGIN
from amelia.testing.github.actions import RunScript
from amelia.testing.github.faults import Fault
from amelia.testing.github.git_http import GIT_ROUTE, GitRequest, answer_git
from amelia.testing.github.memory import InMemoryGitHub
from amelia.testing.github.records import ApiError, Json, User
from amelia.testing.github.rest import (
    DOCUMENTATION_URL,
    RecordedAnswer,
    RecordedRequest,
    RestApi,
    error_document,
)
from amelia.testing.github.state import GitHubState
from amelia.testing.local_server import LocalServer, QuietHandler

__all__ = ["FakeGitHubServer", "entity_tag"]


class FakeGitHubServer(LocalServer):
    """A GitHub REST API on 127.0.0.1 with an ephemeral port, served from a background thread."""

    def __init__(
        self, token_user: str = JOB_TOKEN_LOGIN, *, state: GitHubState | None = None
    ) -> None:
        """`state`: serve this state (default: a new one whose token acts as `token_user`)."""
        self.state = state or GitHubState(token_user)
        self.requests: list[RecordedRequest] = []
        self.answers: list[RecordedAnswer] = []
        """What the REST API answered each request (a dropped connection answers nothing)."""
        self.git_requests: list[GitRequest] = []
        self.rest = RestApi(self.state, lambda: self.url)
        super().__init__(
            type("_BoundHandler", (_RequestHandler,), {"fake": self}), name="fake-github"
        )

    def memory(
        self,
        full_name: str,
        *,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] | None = None,
    ) -> InMemoryGitHub:
        """The in-memory GitHub of repository `full_name`, over this server's state."""
        return InMemoryGitHub(self.state, full_name, policy=policy, sleep=sleep)

    # what GitHub says about the token and where its pages are ------------------------------

    @property
    def token_user(self) -> User:
        return self.state.token_user

    @property
    def max_diff_lines(self) -> int:
        """Diffs longer than this are refused with 406, like GitHub's (tests may lower it)."""
        return self.state.max_diff_lines

    @max_diff_lines.setter
    def max_diff_lines(self, value: int) -> None:
        self.state.max_diff_lines = value

    @property
    def forbid_resolving(self) -> bool:
        """True: `resolveReviewThread` answers FORBIDDEN, as for a token that may not."""
        return self.state.forbid_resolving

    @forbid_resolving.setter
    def forbid_resolving(self, value: bool) -> None:
        self.state.forbid_resolving = value

    @property
    def web_url(self) -> str:
        """Where its `html_url`s point (a GitHub Enterprise Server answers with its own host)."""
        return self.state.web_url

    @web_url.setter
    def web_url(self, value: str) -> None:
        self.state.web_url = value

    @property
    def oauth_scopes(self) -> tuple[str, ...] | None:
        """The token's OAuth scopes, sent as `X-OAuth-Scopes` with every API answer as
        GitHub does for a classic personal access token (None: no header, as for the job's
        token or an App's)."""
        return self.state.oauth_scopes

    @oauth_scopes.setter
    def oauth_scopes(self, value: tuple[str, ...] | None) -> None:
        self.state.oauth_scopes = value

    # state set-up --------------------------------------------------------------------------

    def add_user(self, login: str, user_type: str = "User") -> None:
        self.state.add_user(login, user_type)

    def add_repo(
        self,
        full_name: str,
        default_branch: str = "main",
        bare_path: Path | None = None,
        branches: tuple[str, ...] = (),
        git_token: str | None = None,
    ) -> None:
        """Register a repository; with `bare_path` branches are read from that bare repo,
        which is served over git's HTTP protocol; a push needs `git_token`."""
        self.state.add_repo(full_name, default_branch, bare_path, branches, git_token)

    def set_permission(self, full_name: str, login: str, permission: str) -> None:
        """Give `login` one of admin, maintain, write, triage, read or none."""
        self.state.set_permission(full_name, login, permission)

    def add_issue(
        self,
        full_name: str,
        title: str,
        body: str = "",
        user: str = "octocat",
        labels: tuple[str, ...] | list[str] = (),
        state: str = "open",
        *,
        created_at: str | None = None,
        reactions: Mapping[str, int] | None = None,
    ) -> int:
        """A new issue, numbered after the last one; `created_at` (GitHub's
        `YYYY-MM-DDTHH:MM:SSZ`, default now) and `reactions` (`{"+1": 3}`) as GitHub would
        report them."""
        return self.state.add_issue(
            full_name, title, body, user, labels, state, created_at=created_at, reactions=reactions
        )

    def add_pull(
        self,
        full_name: str,
        head: str,
        base: str = "main",
        title: str = "Change",
        body: str = "",
        draft: bool = False,
        diff: str | None = None,
        head_sha: str = "0" * 40,
        user: str = "octocat",
        head_repo: str | None = None,
    ) -> int:
        """Register a pull; with `diff`, review comments are validated against its hunks;
        with `head_repo`, its head branch is in that fork."""
        return self.state.add_pull(
            full_name, head, base, title, body, draft, diff, head_sha, user, head_repo
        )

    def add_review_comment(
        self, full_name: str, number: int, *, user: str, path: str, line: int, body: str
    ) -> int:
        """A person's review comment on `line` of `path` (new side) of the pull's diff, in a
        review of its own, starting a thread; returns its id."""
        return self.state.add_review_comment(
            full_name, number, user=user, path=path, line=line, body=body
        )

    def resolve_thread(self, full_name: str, number: int, comment_id: int, *, by: str) -> None:
        """`by` resolves the thread review comment `comment_id` is in, as a person does on
        the pull request's page."""
        self.state.resolve_thread(full_name, number, comment_id, by=by)

    def push_to_pull(
        self, full_name: str, number: int, head_sha: str, diff: str | None = None
    ) -> None:
        """The pull's head moved (a push: `synchronize`); `diff` is its new diff."""
        self.state.push_to_pull(full_name, number, head_sha, diff)

    def script_runs(self, full_name: str, workflow: str, *scripts: RunScript) -> None:
        """What the next runs of `workflow` (its file name, e.g. `ci.yml`) do."""
        self.state.script_runs(full_name, workflow, *scripts)

    def inject(self, method: str, path_pattern: str, *faults: Fault) -> None:
        """Queue `faults` for requests whose `METHOD path` fully matches the regex given."""
        self.state.inject(method, path_pattern, *faults)

    # state inspection ----------------------------------------------------------------------

    def comments(self, full_name: str, issue_number: int) -> list[str]:
        with self.state.lock:
            repository = self.state.repository(full_name)
            return [c.body for c in repository.comments.values() if c.issue_number == issue_number]

    def reviews(self, full_name: str, pull_number: int) -> list[Json]:
        """The pull's reviews as GitHub lists them, each with the `comments` its request
        carried."""
        with self.state.lock:
            repository = self.state.repository(full_name)
            pull = repository.issues[pull_number].pull
            return [
                self.rest.review_json(repository, pull_number, review, with_comments=True)
                for review in (pull.reviews if pull else [])
            ]

    def review_comments(self, full_name: str, pull_number: int) -> list[Json]:
        """The pull's review comments as `GET …/pulls/{n}/comments` lists them."""
        with self.state.lock:
            repository = self.state.repository(full_name)
            pull = repository.issues[pull_number].pull
            if pull is None:
                return []
            return [
                self.rest.review_comment_json(repository, pull_number, c)
                for c in pull.review_comments.values()
            ]

    def threads(self, full_name: str, pull_number: int) -> list[Json]:
        """The pull's review threads: node id, resolved or not, by whom, comment ids."""
        with self.state.lock:
            pull = self.state.repository(full_name).issues[pull_number].pull
            return [
                {
                    "id": t.id,
                    "isResolved": t.is_resolved,
                    "resolvedBy": t.resolved_by,
                    "comment_ids": list(t.comment_ids),
                }
                for t in (pull.threads if pull else [])
            ]

    def pulls(self, full_name: str) -> list[Json]:
        with self.state.lock:
            repository = self.state.repository(full_name)
            return [
                self.rest.pull_json(repository, i) for i in repository.issues.values() if i.pull
            ]

    def requests_to(self, method: str, path_pattern: str) -> list[RecordedRequest]:
        return [
            r
            for r in list(self.requests)
            if r.method == method.upper() and re.fullmatch(path_pattern, r.path)
        ]


def entity_tag(payload: Any) -> str:
    """A weak ETag of a JSON (or text) answer, as GitHub sends with every GET."""
    data = payload if isinstance(payload, str) else json.dumps(payload, sort_keys=True)
    return f'W/"{hashlib.sha256(data.encode()).hexdigest()[:40]}"'


class _RequestHandler(QuietHandler):
    fake: FakeGitHubServer
    _answering: RecordedRequest | None = None

    def _handle(self) -> None:
        split = urlsplit(self.path)
        git_route = GIT_ROUTE.fullmatch(split.path)
        if git_route is not None:
            self._serve_git(git_route, split.query)
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = RecordedRequest(
            method=self.command,
            path=split.path,
            query=parse_qs(split.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
        )
        fake = self.fake
        fake.requests.append(request)
        self._answering = request
        fault = fake.state.take_fault(request.method, request.path)
        if fault is not None and fault.kind == "delay":
            fault.wait()
            fault = None
        if fault is not None and fault.kind == "lost":
            with contextlib.suppress(ApiError):  # the answer is lost either way
                fake.rest.dispatch(request)
            time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        if fault is not None and fault.kind != "status":
            if fault.kind == "stall":
                time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        if fault is not None:
            payload: Any = {"message": fault.message, "documentation_url": DOCUMENTATION_URL}
            self._send(fault.status, payload, fault.headers)
            return
        try:
            status, payload, headers = fake.rest.dispatch(request)
        except ApiError as error:
            status, payload, headers = error.status, error_document(error), {}
        if request.method == "GET" and status == HTTPStatus.OK:
            # GitHub's conditional requests: an answer that has not changed since the ETag
            # sent back is 304 Not Modified, without a body.
            tag = entity_tag(payload)
            headers = {**headers, "ETag": tag}
            if request.headers.get("if-none-match") == tag:
                status, payload = HTTPStatus.NOT_MODIFIED, None
        self._send(status, payload, headers)

    def _request_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _serve_git(self, route: re.Match[str], query: str) -> None:
        """Answer git's smart HTTP protocol from the repository's bare clone, unless a fault
        was injected for the request's path (`/<owner>/<name>/git-receive-pack`, …)."""
        body = self._request_body()
        fault = self.fake.state.take_fault(self.command, route.group(0))
        if fault is not None and fault.kind == "delay":
            fault.wait()
        elif fault is not None and fault.kind == "status":
            message = f"{fault.message}\n".encode()
            self._send_bytes(fault.status, [("Content-Type", "text/plain")], message)
            return
        elif fault is not None:
            if fault.kind == "stall":
                time.sleep(fault.stall_seconds)
            self._drop_connection()
            return
        answer = answer_git(
            self.fake.state,
            method=self.command,
            route=route,
            query=query,
            headers=self.headers,
            body=body,
        )
        if answer.request is not None:
            self.fake.git_requests.append(answer.request)
        self._send_bytes(answer.status, answer.headers, answer.body)

    def _send_bytes(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send(self, status: int, payload: Any, headers: dict[str, str]) -> None:
        if payload is None:
            data = b""
        elif isinstance(payload, str):
            data = payload.encode()
        else:
            data = json.dumps(payload).encode()
        if self._answering is not None:
            self.fake.answers.append(RecordedAnswer(self._answering, status, payload))
        self.send_response(status)
        base = {
            "Content-Type": "application/json; charset=utf-8",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Remaining": "4999",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
            "X-GitHub-Request-Id": f"FAKE:{len(self.fake.requests)}",
        }
        scopes = self.fake.state.oauth_scopes
        if scopes is not None:
            base["X-OAuth-Scopes"] = ", ".join(scopes)
        lower = {k.lower() for k in headers}
        for name, value in {
            **{k: v for k, v in base.items() if k.lower() not in lower},
            **headers,
        }.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _drop_connection(self) -> None:
        # SO_LINGER 0 turns close() into a TCP RST, which clients see as "connection reset".
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.close_connection = True
        self.connection.close()

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            return

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle
