"""The checkout's credentials: hidden while agents run, given back byte for byte after.

On a runner the checkout belongs to another uid and holds the job's token in whichever
form actions/checkout (or an earlier step) left it (see `amelia.git.credentials`).
`prepare()` trusts the directory, takes every credential out of the checkout's git
configuration (and empties the files holding one) and names the bot as the committer;
`restore()` puts every changed file back byte for byte once no agent can run any more,
so later steps of the job (and actions/checkout's own post-step cleanup) find the
checkout as actions/checkout left it, and gives what amelia's own git made in `.git` as
root to the checkout's owner.

The guard owns amelia's git in the checkout (`git`): on a runner it reads only a config
amelia owns (`private_git_config()`), and the bot's commits carry the address of the
GitHub the run talks to. The token never leaves the guard but in `authenticated()`,
which takes the proof that every agent process was stopped (`AgentsStopped`, made only
by `AgentSessions`) and refuses a proof an agent run has outdated.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from amelia.action.checkout._sessions import AgentsStopped
from amelia.errors import GitError
from amelia.git import (
    Git,
    HiddenCredentials,
    NetworkRetry,
    WorktreeListing,
    configure_identity,
    hide_credentials,
    mark_safe_directory,
    secret_files,
)
from amelia.isolation.ownership import give_git_back

__all__ = ["CredentialGuard", "GitHome", "private_git_config"]


@contextmanager
def private_git_config() -> Iterator[Path]:
    """An empty git config file only this process writes, removed on leaving: the global
    config of amelia's isolated git on a runner (see `amelia.git.Isolation`)."""
    with tempfile.TemporaryDirectory(prefix="amelia-git-") as private:
        global_config = Path(private) / "gitconfig"
        global_config.write_bytes(b"")
        yield global_config


@dataclass(frozen=True, kw_only=True)
class GitHome:
    """Where the git amelia runs finds `~` and its XDG files (the runner's HOME): the
    global config files there are searched for credentials too."""

    home: Path | None = None
    xdg_config: Path | None = None

    @classmethod
    def of(cls, environ: Mapping[str, str]) -> GitHome:
        """The places `environ` (what git amelia starts inherits) names."""
        home, xdg = environ.get("HOME"), environ.get("XDG_CONFIG_HOME")
        return cls(home=Path(home) if home else None, xdg_config=Path(xdg) if xdg else None)

    def global_configs(self) -> list[Path]:
        found = [] if self.home is None else [self.home / ".gitconfig"]
        if self.xdg_config is not None:
            found.append(self.xdg_config / "git" / "config")
        elif self.home is not None:
            found.append(self.home / ".config" / "git" / "config")
        return found


class CredentialGuard:
    """The credentials of the checkout at `path`, and amelia's git in it."""

    def __init__(
        self,
        path: Path,
        *,
        token: str | None = None,
        on_runner: bool = True,
        remote_url: str | None = None,
        git_home: GitHome | None = None,
        global_config: Path | None = None,
        server_url: str = "https://github.com",
        trust_checkout: bool = False,
        network_retry: NetworkRetry | None = None,
    ) -> None:
        self.path = path.resolve()
        self.on_runner = on_runner
        """A GitHub runner's throwaway checkout (`GITHUB_ACTIONS=true`), not a user's clone."""
        self.remote_url = remote_url
        """What amelia's remote commands talk to (None: origin's URL from the config)."""
        self.git_home = git_home or GitHome()
        self.global_config = global_config
        """amelia's own global config on a runner (None: git's usual one)."""
        self._token = token
        # The saved files (and so the credentials) are kept in memory only: agents' tools
        # cannot read this process's memory, and nothing else holds the values meanwhile.
        self._hidden = HiddenCredentials()
        self._lock = threading.Lock()
        git = self._local_git(server_url, trust_checkout=trust_checkout)
        self.git = git if network_retry is None else git.with_network_retry(network_retry)
        """amelia's git in the checkout, without the token; for fetches and pushes,
        `authenticated()` (retried as `network_retry` says, else as git's defaults)."""

    def _local_git(self, server_url: str, *, trust_checkout: bool) -> Git:
        """On a runner (given `global_config`), git reads only configuration amelia owns (a
        private global config, no system config, no credential helper); elsewhere the
        user's git configuration applies as it is, and with `trust_checkout` (an agent user
        owns the checkout's files while agents run) amelia's git trusts the checkout (for
        its own commands only, in no file). Either way the bot's commits carry the noreply
        address of the GitHub at `server_url`."""
        git = Git(self.path).for_server(server_url)
        if self.on_runner and self.global_config is not None:
            return git.isolated(self.global_config)
        if not self.on_runner and trust_checkout:
            return git.with_config({"safe.directory": str(self.path)})
        return git

    @property
    def removed_credentials(self) -> list[str]:
        """Config keys taken out of the checkout's configuration (names, never values)."""
        return list(self._hidden.keys)

    @property
    def emptied_files(self) -> list[Path]:
        """Files emptied while agents run because they hold a credential."""
        return list(self._hidden.files)

    def own_config_files(self) -> tuple[Path, ...]:
        """The config files of amelia's own that agents must not change (its global one)."""
        return () if self.global_config is None else (self.global_config,)

    def check(self) -> None:
        """`GitError` unless `path` is a git checkout."""
        if not (self.path / ".git").exists():
            raise GitError(f"the workspace {self.path} is not a git checkout")

    def prepare(self) -> None:
        """On a runner, trust the directory; hide persisted credentials; on a runner, commit
        as amelia[bot]."""
        self.check()
        with self._lock:
            if self.on_runner:
                # Another uid owns the runner's checkout.
                mark_safe_directory(self.git)
            # Saved before anything changes, so that the end restores the checkout's own.
            self._hidden.remember(self.path / ".git" / "config")
            hide_credentials(
                self.git,
                global_configs=self.git_home.global_configs() if self.on_runner else (),
                home=self.git_home.home,
                xdg_config=self.git_home.xdg_config,
                into=self._hidden,
            )
            if self.on_runner:
                configure_identity(self.git)
        if self._hidden.hidden:
            logger.info(
                "hid the checkout's credentials while agents run: {} {}",
                ", ".join(self._hidden.keys),
                ", ".join(str(path) for path in self._hidden.files),
            )

    def hide_earlier_credentials(self, *, listing: WorktreeListing | None = None) -> None:
        """On a runner, empty the credential files earlier steps left in the checkout (an
        `.npmrc` with a token, an auth action's key file) until `restore()`, like the
        token: call it before the first agent runs. `listing`: the checkout as git has
        just listed it (None: listed here)."""
        if not self.on_runner:
            return
        with self._lock:
            found = secret_files(self.git, listing=listing)
            self._hidden.empty(self.path / path for path in found)

    def authenticated(self, stopped: AgentsStopped) -> Git:
        """`git` talking to the repository (`remote_url`, else origin), with the token when
        there is one (private repositories, pushes).

        Only git processes started with the value see the token, in their environment,
        which a process of the same user could read: so the value is handed out only for
        `stopped`, the proof that no agent process of this run lives and none started
        since (`RuntimeError` otherwise). Start no agent while the value is in use.
        """
        if not stopped.holds():
            raise RuntimeError("an agent ran after its processes were stopped: no token for it")
        git = self.git if self.remote_url is None else self.git.with_remote(self.remote_url)
        return git.authenticated(self._token)

    def restore(self, stopped: AgentsStopped) -> None:
        """Put back every file `prepare()` and `hide_earlier_credentials()` changed, byte for
        byte (once; later calls do nothing); on a runner, give what amelia's own git made in
        `.git` as root to the checkout root's owner.

        `stopped`: the proof that no agent can run any more (`RuntimeError` otherwise),
        since from here on the token is readable in `.git/config` again. Our own pushes
        must be done too, or git would send the header twice (once from here, once from
        the authenticated value)."""
        if not stopped.holds():
            raise RuntimeError("an agent ran after its processes were stopped: nothing restored")
        with self._lock:
            self._hidden.restore()
            if self.on_runner:
                given = give_git_back(self.path)
                if given:
                    logger.info(
                        "gave {} path(s) amelia's git made in .git back to the checkout's owner",
                        given,
                    )
