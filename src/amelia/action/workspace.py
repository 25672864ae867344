"""The checkout the agents work in, as the Action needs it.

On a runner the checkout belongs to another uid and holds the job's token in whichever
form actions/checkout (or an earlier step) left it (see `amelia.git.credentials`).
`Workspace.prepare()` trusts the directory, takes every credential out of the checkout's
git configuration (and empties the files holding one) and names the bot as the
committer; `restore_credentials()` puts every changed file back byte for byte once no
agent can run any more, so later steps of the job (and actions/checkout's own post-step
cleanup) find the checkout as actions/checkout left it.

amelia's own git runs through `git`, a `amelia.git.Git` value: on a runner it reads only
configuration amelia owns (`private_git_config()`, see `amelia.git.Isolation`), and its
commits carry the bot's address of the GitHub the run talks to. Pushes and reads of origin
run through `remote()`, the same value talking to the repository's URL on the server
(`remote_url`) rather than to whatever `origin` says, with the token, which reaches git
through `GIT_CONFIG_*` variables in the environment of those git processes only, never in
this process's environment; `remote()` stops every agent process first.

Around every agent run (`agent_session()`): before the first one, the worktree's state is
recorded (`amelia.git.WorktreeBaseline`) so that only the agents' work is committed; the
repository's config files and amelia's private global config are saved before and put
back after each run, so nothing an agent wrote there reaches amelia's next git command.
With an agent user (`amelia.isolation.agent_user`), the checkout's files (not `.git`) are
handed to it before every run (`amelia.isolation.ownership`); before a push and at the
end every process of it is stopped, and at the end the files go back to their owners.

Before each commit of the agents' work, files GitHub would refuse in a push (a workflow
file the token may not change, a file over 100 MB) are held back (`held_back`, see
`amelia.action.held_back`); a push GitHub refuses for such a file all the same is made
once more without it.
"""

from __future__ import annotations

import tempfile
import threading
from collections.abc import AsyncIterator, Iterable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from amelia.action.held_back import HELD_BACK_DIR, HoldBack
from amelia.action.held_back_report import large_file_note
from amelia.action.runner_files import RunnerFiles
from amelia.action.unpushed import UnpushedWork, save_unpushed
from amelia.errors import GitError, SecretInChangeError
from amelia.git import (
    ConfigSnapshot,
    Git,
    HiddenCredentials,
    Leak,
    PushAllowance,
    WorktreeBaseline,
    commit_changes,
    commit_paths,
    configure_identity,
    head_sha,
    hide_credentials,
    mark_safe_directory,
    push,
    read_refusal,
    remote_tracking_commits,
    scan_unpushed,
    secret_files,
)
from amelia.isolation.agent_user import AgentUser
from amelia.isolation.leftovers import Leftovers
from amelia.isolation.ownership import CheckoutOwnership, give_git_back

__all__ = ["CommittedWork", "GitHome", "Workspace", "private_git_config"]


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


@dataclass(frozen=True)
class CommittedWork:
    """What `commit_agent_work` did: the new commit (None: nothing to commit) and the
    files it left out because they hold credentials."""

    sha: str | None
    withheld: tuple[str, ...]


class Workspace:
    """The checkout at `path`, pushed to its `origin` with `token` (when given)."""

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
    ) -> None:
        self.path = path.resolve()
        self.agent = agent
        """The unprivileged user agents run as (None: amelia's own): the checkout is handed
        to it while agents run, and its processes are stopped before a push and at the end."""
        self._ownership = None if agent is None else CheckoutOwnership(self.path, agent)
        self.on_runner = on_runner
        """A GitHub runner's throwaway checkout (`GITHUB_ACTIONS=true`), not a user's clone."""
        self.remote_url = remote_url
        """What amelia's remote commands talk to (None: origin's URL from the config)."""
        self._token = token
        self._secrets = tuple(secret for secret in secrets if secret)
        self.dry_run = dry_run
        self.artifacts_dir = artifacts_dir
        """Where unpushed commits are saved when a push fails for good (None: nowhere)."""
        self.git_home = git_home or GitHome()
        self.unpushed: UnpushedWork | None = None
        self.flagged: list[Leak] = []
        """Token-shaped strings found in what was pushed (file and kind), for people to check."""
        self.withheld: list[str] = []
        """Files the agents wrote that were not committed because they hold credentials."""
        self.held_back = HoldBack(
            allowance=allowance,
            directory=None if artifacts_dir is None else artifacts_dir / HELD_BACK_DIR,
            secrets=self._secrets,
        )
        """Files of the agents' change GitHub would refuse in a push (`allowance`: what the
        token may push): left out of the commits, kept and described."""
        self._hidden = HiddenCredentials()
        # The saved files (and so the credentials) are kept in memory only: agents' tools
        # cannot read this process's memory, and nothing else holds the values meanwhile.
        self._lock = threading.Lock()
        self._baseline: WorktreeBaseline | None = None
        self._snapshot: ConfigSnapshot | None = None
        self._global_config = global_config
        self.git = self._local_git(server_url)
        """How amelia's own git runs in the checkout, without the token (see the module
        docstring); for pushes and fetches, `remote()`."""
        self._runner_files = runner_files or RunnerFiles({})
        """The runner's file commands, put back after every agent run."""
        self._runner_files_before: RunnerFiles | None = None
        self._runner_files_first: RunnerFiles | None = None
        """Before the first agent, the runner's files amelia never writes itself."""
        self._published: list[str] | None = None
        """Commits on the server, as amelia knew before agents could write `.git/` and from
        its own pushes since (None: no agent ran)."""
        self.leftovers = Leftovers()
        """What agents left running: stopped after every agent run and before the token is
        used or put back."""

    @property
    def removed_credentials(self) -> list[str]:
        """Config keys taken out of the checkout's configuration (names, never values)."""
        return list(self._hidden.keys)

    @property
    def emptied_files(self) -> list[Path]:
        """Files emptied while agents run because they hold a credential."""
        return list(self._hidden.files)

    def _local_git(self, server_url: str) -> Git:
        """On a runner (given `global_config`), git reads only configuration amelia owns (a
        private global config, no system config, no credential helper); elsewhere the
        user's git configuration applies as it is, and with an agent user amelia's git
        trusts the checkout it hands to that user (for its own commands only, in no file).
        Either way the bot's commits carry the noreply address of the GitHub at
        `server_url`."""
        git = Git(self.path).for_server(server_url)
        if self.on_runner and self._global_config is not None:
            return git.isolated(self._global_config)
        if not self.on_runner and self.agent is not None:
            return git.with_config({"safe.directory": str(self.path)})
        return git

    def prepare(self) -> None:
        """On a runner, trust the directory; hide persisted credentials; on a runner, commit
        as amelia[bot]."""
        if not (self.path / ".git").exists():
            raise GitError(f"the workspace {self.path} is not a git checkout")
        with self._lock:
            if self.on_runner:
                # Another uid owns the runner's checkout.
                mark_safe_directory(self.git)
            # Saved before anything changes, so that the end restores the checkout's own.
            if self._ownership is not None:
                self._ownership.record()
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

    def restore_credentials(self) -> None:
        """Put back every file `prepare()` changed, byte for byte (once; later calls do
        nothing).

        Only call it when no agent can run any more: from then on the token is readable in
        `.git/config` again. Our own pushes must be done too, or git would send the header
        twice (once from here, once from `push()`).

        What agents left running is stopped first (raising `LeftoverProcessError`, and
        so keeping the token hidden, when some would not stop), and the runner's files
        amelia never writes are put back as they were before the first agent.
        With an agent user, every process of it is stopped too and the checkout's files are
        given back to their owners (new ones to the checkout root's); if one survives,
        nothing is given back or restored (`AgentUserError`). On a runner, what amelia's
        own git made in `.git` as root goes to the checkout root's owner as well.
        """
        self.leftovers.stop()
        if self._runner_files_first is not None:
            for path in self._runner_files_first.restore():
                logger.warning("the runner's file {} changed after the agents; put it back", path)
        with self._lock:
            self.stop_agents()
            if self._ownership is not None:
                self._ownership.give_back()
            self._hidden.restore()
            if self.on_runner:
                given = give_git_back(self.path)
                if given:
                    logger.info(
                        "gave {} path(s) amelia's git made in .git back to the checkout's owner",
                        given,
                    )

    def stop_agents(self) -> None:
        """Kill every process of the agent user this run started (a daemon an agent left
        could watch for amelia's token-bearing git; another run's are left alone); raises
        `AgentUserError` when one survives."""
        if self.agent is not None:
            self.agent.stop_processes()

    @asynccontextmanager
    async def agent_session(self, role: str) -> AsyncIterator[None]:
        """Around one agent run: the worktree's state is recorded before the first run; the
        repository's config files (and amelia's private global config) are saved before and
        put back after each run."""
        self._before_agent()
        try:
            yield
        finally:
            # Synchronous on purpose: a cancelled run must still put everything back.
            self._after_agent(role)

    def _before_agent(self) -> None:
        first = self._baseline is None
        self.leftovers.begin()
        self._runner_files_before = self._runner_files.take()
        if self._runner_files_first is None:
            self._runner_files_first = self._runner_files_before.never_written_by_amelia()
        if self._baseline is None:
            agent = self.agent
            if agent is not None:
                logger.info(
                    "agents run as user {}, uid {}, gid {}; the checkout is theirs until the end",
                    agent.name,
                    agent.uid,
                    agent.gid,
                )
            if self.on_runner:
                # Credentials an earlier step left in the checkout (an `.npmrc` with a token,
                # an auth action's key file) are emptied while agents run, like the token.
                with self._lock:
                    self._hidden.empty(self.path / path for path in secret_files(self.git))
            self._baseline = WorktreeBaseline.capture(self.git)
            self._published = list(remote_tracking_commits(self.git))
        if self._ownership is not None:
            # Also what amelia's own git made since the last agent (a rebase, a checkout).
            self._ownership.hand_over()
            if first and self.agent is not None:
                # Before any model request: a checkout the agent cannot write would let a
                # paid run go on with every edit failing.
                self.agent.check_access(self.path)
        extra = () if self._global_config is None else (self._global_config,)
        self._snapshot = ConfigSnapshot.take(self.git, extra=extra)

    def preexisting_paths(self) -> frozenset[str]:
        """Paths that are as they were before the first agent ran: earlier steps' files."""
        return frozenset() if self._baseline is None else self._baseline.unchanged()

    def _after_agent(self, role: str) -> None:
        # First what the agent left running, which could change the files again; the files
        # are put back even when some would not stop (the run fails then, and the token
        # stays hidden).
        try:
            stopped = self.leftovers.stop()
            if stopped:
                logger.warning("stopped {} process(es) the {} agent left running", stopped, role)
            self.stop_agents()
        finally:
            self._put_back(role)

    def _put_back(self, role: str) -> None:
        runner_files, self._runner_files_before = self._runner_files_before, None
        if runner_files is not None:
            for path in runner_files.restore():
                logger.warning(
                    "the {} agent changed the runner's file {}; amelia put it back", role, path
                )
        snapshot, self._snapshot = self._snapshot, None
        if snapshot is None:
            return
        changed = snapshot.restore()
        if changed:
            logger.warning(
                "the {} agent changed {}; amelia put the file(s) back before its own git ran",
                role,
                ", ".join(str(path) for path in changed),
            )

    def commit_agent_work(self, message: str, *, co_author: str | None = None) -> CommittedWork:
        """Commit what the agents created, changed or deleted since before the first one
        ran, and nothing else; files that hold credentials are left out (`withheld`), and
        files GitHub would refuse in a push stay in the worktree (`held_back`)."""
        baseline = self._baseline or WorktreeBaseline.capture(self.git)
        changes = baseline.changes()
        for path in changes.withheld:
            if path not in self.withheld:
                self.withheld.append(path)
                logger.warning("{} holds credentials by its name: not committed", path)
        paths = self.held_back.split(self.git, changes.paths)
        sha = commit_changes(self.git, paths, message, co_author=co_author)
        return CommittedWork(sha=sha, withheld=changes.withheld)

    def notes(self) -> tuple[str, ...]:
        """What people should know about the commits of this run, one line each."""
        notes = []
        if self.withheld:
            files = ", ".join(f"`{path}`" for path in self.withheld)
            notes.append(
                f"Not committed: {files}. The agents wrote these files, but their names mark "
                "them as credential files; add them yourself if they are meant to be public."
            )
        if self.flagged:
            found = ", ".join(f"`{leak.path}` ({leak.kind})" for leak in self.flagged)
            notes.append(
                f"Strings shaped like credentials were pushed in {found}: check them before "
                "merging (GitHub's push protection may refuse them too)."
            )
        large = large_file_note(self.held_back.large)
        if large:
            notes.append(large)
        return tuple(notes)

    def commit_path(self, relative: str, message: str, *, co_author: str | None = None) -> str:
        """Commit `relative` as it is in the worktree; the head sha (unchanged if identical)."""
        # amelia chose the path, so a .gitignore that covers it does not stop the commit.
        return commit_paths(self.git, [relative], message, co_author=co_author, force=True)

    def remote(self) -> Git:
        """`git` talking to the repository (`remote_url`, else origin), with the token when
        there is one (private repositories, pushes).

        Every process an agent left running, and every process of the agent user, is
        stopped first: only git processes started with the value see the token, in their
        environment, which a process of the same user could read. Start no agent while
        the value is in use; ask for it again after one ran.
        """
        self.leftovers.stop()
        self.stop_agents()
        git = self.git if self.remote_url is None else self.git.with_remote(self.remote_url)
        return git.authenticated(self._token)

    def push(self, branch: str) -> str:
        """Push `branch` to origin (skipped in a dry run), authenticated only for this push.

        The commits are searched first: one that holds the value of a secret of this run
        is never pushed (`SecretInChangeError`, naming the file; the work is saved with the
        value masked), a token-shaped string is pushed and recorded in `flagged`.
        Returns the branch's head afterwards: a rebase onto what others pushed meanwhile
        changes it, and links must name the commit origin has."""
        # Not what `refs/remotes` says now: an agent could add a ref there to keep its
        # commits out of the search.
        report = scan_unpushed(self.git, branch, secrets=self._secrets, published=self._published)
        for leak in report.tokens:
            if leak not in self.flagged:
                self.flagged.append(leak)
        if report.secrets:
            files = ", ".join(f"`{leak.path}`" for leak in report.secrets)
            error = SecretInChangeError(
                f"refused to push {branch}: {files} contain(s) the value of a secret this run "
                "was given (a token or key); remove it from the change"
            )
            raise self._keep_unpushed(branch, error)
        if self.dry_run:
            return head_sha(self.git)
        try:
            self._push_holding_back(branch)
        except GitError as error:
            raise self._keep_unpushed(branch, error) from None
        pushed = head_sha(self.git)
        if self._published is not None:
            self._published.append(pushed)
        return pushed

    def _push_holding_back(self, branch: str) -> None:
        """Push `branch`; when GitHub refuses files amelia knows how to hold back (a
        workflow file the token may not change, a file over its size limit), push the rest
        once more without them (`HoldBack.after_refusal`)."""
        try:
            push(self.remote(), branch)
            return
        except GitError as error:
            refusal = read_refusal(error.stderr)
            if not self.held_back.after_refusal(
                self.git, branch, refusal, published=self._published
            ):
                raise
        push(self.remote(), branch)

    def _keep_unpushed(self, branch: str, error: GitError) -> GitError:
        """Save the commits the failed push would have published, with every secret of the
        run masked (and every line GitHub's push protection pointed at); the error says
        where."""
        if self.artifacts_dir is None:
            return error
        refusal = read_refusal(error.stderr)
        try:
            self.unpushed = save_unpushed(
                self.git, branch, self.artifacts_dir, secrets=self._secrets, refusal=refusal
            )
        except (GitError, OSError) as saving:
            return GitError(f"{error}; saving the unpushed commits failed too: {saving}")
        if self.unpushed is None:
            return error
        where = self.unpushed.patch_path
        # Location first: the progress comment shortens long reasons.
        return type(error)(
            f"the unpushed commits are saved in {where}; {error}", stderr=error.stderr
        )
