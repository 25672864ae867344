"""The checkout the engine builds for a run: its three parts, wired together."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from amelia.action.checkout._guard import CredentialGuard, GitHome
from amelia.action.checkout._publisher import Publisher
from amelia.action.checkout._runner_files import RunnerFiles
from amelia.action.checkout._sessions import AgentSessions
from amelia.git import Git, NetworkRetry, PushAllowance
from amelia.isolation.agent_user import AgentUser

__all__ = ["Checkout"]


class Checkout:
    """The checkout at `path`: `guard` keeps its credentials, `sessions` surrounds every
    agent run in it, `publisher` commits and pushes the agents' work (to origin, with
    `token` when given; fetches and pushes are retried as `network_retry` says)."""

    def __init__(
        self,
        path: Path,
        *,
        token: str | None = None,
        dry_run: bool = False,
        artifacts_dir: Path | None = None,
        on_runner: bool = True,
        remote_url: str | None = None,
        secrets: Iterable[str] = (),
        git_home: GitHome | None = None,
        runner_files: RunnerFiles | None = None,
        agent: AgentUser | None = None,
        allowance: PushAllowance | None = None,
        global_config: Path | None = None,
        server_url: str = "https://github.com",
        runner_temp: str | None = None,
        network_retry: NetworkRetry | None = None,
    ) -> None:
        self.guard = CredentialGuard(
            path,
            token=token,
            on_runner=on_runner,
            remote_url=remote_url,
            git_home=git_home,
            global_config=global_config,
            server_url=server_url,
            trust_checkout=agent is not None,
            network_retry=network_retry,
        )
        self.sessions = AgentSessions(
            self.guard.git,
            agent=agent,
            runner_files=runner_files,
            own_config_files=self.guard.own_config_files(),
            before_first=lambda listing: self.guard.hide_earlier_credentials(listing=listing),
        )
        self.publisher = Publisher(
            self.guard,
            self.sessions,
            dry_run=dry_run,
            artifacts_dir=artifacts_dir,
            secrets=secrets,
            allowance=allowance,
            runner_temp=runner_temp,
        )

    @property
    def path(self) -> Path:
        return self.guard.path

    @property
    def git(self) -> Git:
        """amelia's git in the checkout, without the token: for every local command."""
        return self.guard.git

    def remote(self) -> Git:
        """amelia's git talking to the repository, with the token when there is one: for
        fetches and reads of origin. Every agent process is stopped first; ask again after
        an agent ran (the guard refuses an out-of-date proof)."""
        return self.guard.authenticated(self.sessions.stop_agents())

    def prepare(self) -> None:
        """Before the mode: trust the checkout, hide its credentials, record who owns its
        files (before amelia's own git changes any)."""
        self.guard.check()
        self.sessions.record_owners()
        self.guard.prepare()

    def restore(self) -> None:
        """After the mode (every agent ended, the last push done): stop what agents left,
        give the files back to their owners and the credentials back to the checkout.
        Raises `LeftoverProcessError` or `AgentUserError`, keeping the token hidden, when
        an agent's process would not stop."""
        self.guard.restore(self.sessions.end())
