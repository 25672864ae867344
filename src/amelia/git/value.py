"""The Git value: one repository, and everything amelia's git brings to it, said explicitly.

A `Git` names the repository a command runs in and what that command gets beyond the
hardened defaults every command has (`amelia.git.runner`):

- `config`: entries given to git through `GIT_CONFIG_*` in the environment of that one
  process (never its arguments, never this process's environment, never a file);
- `isolation`: git reads no system config, a global config amelia owns instead of
  `~/.gitconfig`, forgets every credential helper and speaks only the protocols named;
- `remotes`: the URL a remote's name stands for, whatever the repository's config says
  (so a rewritten `remote.origin.url` or `pushurl` cannot redirect a push or a fetch);
- `email`: the bot's address on the commits amelia makes (the noreply address of the
  GitHub the run talks to);
- `auth`: the header that authenticates to the server, only in a value made by
  `authenticated(token)`;
- `network_retry`: how often, and how patiently, a command that talks to a remote (a
  fetch, a push) is tried.

Values never change: `with_config`, `isolated`, `with_remote`, `for_server`,
`with_network_retry`, `authenticated` and `at` derive new ones. So whether a command
carries the token is seen at the call: it was handed an authenticated value. Every function
of `amelia.git` takes a `Git` or a plain `Path`; a path means plain git there (no extra
config, no auth, the default retries).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from pathlib import Path
from urllib.parse import urlsplit

__all__ = [
    "BOT_EMAIL",
    "BOT_NAME",
    "DEFAULT_PROTOCOLS",
    "Git",
    "Isolation",
    "NetworkRetry",
    "Repo",
    "basic_auth_header",
    "noreply_address",
]

BOT_NAME = "amelia[bot]"
BOT_EMAIL = "amelia[bot]@users.noreply.github.com"
"""The bot's address on github.com; `Git.for_server` names it on another GitHub."""
DEFAULT_PROTOCOLS = ("https", "http", "file")
"""What isolated git may speak: no `ext::` command, no ssh with a planted `core.sshCommand`."""


def noreply_address(login: str, *, server_url: str = "https://github.com") -> str:
    """The address GitHub at `server_url` gives `login`'s commits: `<login>@users.noreply.
    <host>` (github.com, or a GitHub Enterprise Server's own host)."""
    host = urlsplit(server_url).hostname or "github.com"
    return f"{login}@users.noreply.{host}"


def basic_auth_header(token: str) -> str:
    """The header actions/checkout uses: basic auth as `x-access-token:<token>`."""
    encoded = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return f"AUTHORIZATION: basic {encoded}"


@dataclass(frozen=True)
class Isolation:
    """git on configuration amelia controls: `global_config` (a file amelia owns, which no
    agent can write) instead of `~/.gitconfig`, no system config, no credential helper,
    only `protocols`. The repository's own `.git/config` is still read: keep it as amelia
    wrote it (`amelia.git.ConfigSnapshot`)."""

    global_config: Path
    _: KW_ONLY
    protocols: tuple[str, ...] = DEFAULT_PROTOCOLS

    def config(self) -> tuple[tuple[str, str], ...]:
        """The entries that make it so (`credential.helper=` empties the helper list)."""
        allowed = tuple((f"protocol.{name}.allow", "always") for name in self.protocols)
        return (("credential.helper", ""), ("protocol.allow", "never"), *allowed)


@dataclass(frozen=True)
class NetworkRetry:
    """How often, and how patiently, a command talking to a remote is tried.

    After failed attempt n the wait is `backoff * n` seconds (none after a push that was
    only behind: it rebases and pushes again at once). A run's policy comes from
    `AMELIA_GIT_RETRY_ATTEMPTS` and `AMELIA_GIT_RETRY_BACKOFF` (`Git.network_retry`)."""

    _: KW_ONLY
    attempts: int = 3
    backoff: float = 2.0
    sleep: Callable[[float], None] = time.sleep


@dataclass(frozen=True)
class Git:
    """The repository at `path` and what amelia's git brings to it (module docstring)."""

    path: Path
    _: KW_ONLY
    config: tuple[tuple[str, str], ...] = ()
    """Entries every command gets, in order (a later one wins, as in a config file)."""
    isolation: Isolation | None = None
    """None: git reads the system's and the user's configuration as usual."""
    remotes: tuple[tuple[str, str], ...] = ()
    """(remote name, URL) pairs: what a command naming the remote talks to."""
    email: str = BOT_EMAIL
    """The address on the bot's commits."""
    auth: str | None = field(default=None, repr=False)
    """The `http.extraheader` value that authenticates (None: none). Never shown."""
    network_retry: NetworkRetry = NetworkRetry()
    """How commands talking to a remote (fetches, pushes) are tried."""

    @classmethod
    def of(cls, repo: Repo) -> Git:
        """`repo` itself, or plain git at a path."""
        return repo if isinstance(repo, Git) else cls(repo)

    def at(self, path: Path) -> Git:
        """The same configuration, identity and auth, in the repository at `path`."""
        return replace(self, path=path)

    def with_config(self, values: Mapping[str, str]) -> Git:
        """These config entries too (after the ones it has)."""
        return replace(self, config=(*self.config, *values.items()))

    def isolated(self, global_config: Path, *, protocols: Sequence[str] = DEFAULT_PROTOCOLS) -> Git:
        """Isolated from every configuration amelia does not own (see `Isolation`)."""
        return replace(self, isolation=Isolation(global_config, protocols=tuple(protocols)))

    def with_remote(self, url: str, *, remote: str = "origin") -> Git:
        """Commands naming `remote` talk to `url`; its remote-tracking refs keep the name."""
        return replace(self, remotes=(*self.remotes, (remote, url)))

    def with_network_retry(self, policy: NetworkRetry) -> Git:
        """Commands talking to a remote are retried as `policy` says."""
        return replace(self, network_retry=policy)

    def for_server(self, server_url: str) -> Git:
        """The bot's commits carry the noreply address of the GitHub at `server_url`, so
        nothing names github.com on an Enterprise Server."""
        return replace(self, email=noreply_address(BOT_NAME, server_url=server_url))

    def authenticated(self, token: str | None) -> Git:
        """Commands talk to the server with `token` (as actions/checkout's header); the
        same value when there is no token (a public repository's reads)."""
        if not token:
            return self
        return replace(self, auth=basic_auth_header(token))

    @property
    def is_authenticated(self) -> bool:
        return self.auth is not None

    def address(self, *, remote: str = "origin") -> str:
        """What git is told to talk to for `remote`: the URL `with_remote` gave (the last
        one), else the name (and so the URL the repository's config holds)."""
        for name, url in reversed(self.remotes):
            if name == remote:
                return url
        return remote

    def entries(self) -> tuple[tuple[str, str], ...]:
        """Every config entry this value adds to a command: isolation's, `config`, auth."""
        isolation = () if self.isolation is None else self.isolation.config()
        auth = () if self.auth is None else (("http.extraheader", self.auth),)
        return (*isolation, *self.config, *auth)


Repo = Git | Path
"""Where a git function runs: a `Git` value, or a path (plain git there)."""
