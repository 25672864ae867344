"""Publishing the agents' work: commit only it, search it, push it with the token.

`commit_agent_work` commits what the agents created, changed or deleted since before the
first one ran (`AgentSessions.baseline`) and nothing else: files named like credentials
are left out (`withheld`), and files GitHub would refuse in a push (a workflow file the
token may not change, a file over 100 MB) stay in the worktree, held back (`held_back`,
see `amelia.action.checkout._held_back`).

`push` searches the unpushed commits first: one holding the value of a secret of the run
is never pushed, a token-shaped string is pushed and `flagged`. The push itself runs with
the authenticated `Git` value the credential guard hands out only for the proof that
`AgentSessions` stopped every agent process; a push GitHub refuses for a file amelia
knows how to hold back is made once more without it, and commits that cannot be pushed
are saved (`unpushed`, see `amelia.action.checkout._unpushed`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from loguru import logger

from amelia.action.checkout._guard import CredentialGuard
from amelia.action.checkout._held_back import HELD_BACK_DIR, HoldBack
from amelia.action.checkout._held_back_report import large_file_note
from amelia.action.checkout._sessions import AgentSessions
from amelia.action.checkout._unpushed import UnpushedWork, save_unpushed
from amelia.errors import GitError, SecretInChangeError
from amelia.git import (
    Git,
    Leak,
    PushAllowance,
    WorktreeBaseline,
    commit_changes,
    commit_paths,
    head_sha,
    push,
    read_refusal,
    scan_unpushed,
)

__all__ = ["CommittedWork", "Publisher"]


@dataclass(frozen=True)
class CommittedWork:
    """What `commit_agent_work` did: the new commit (None: nothing to commit) and the
    files it left out because they hold credentials."""

    sha: str | None
    withheld: tuple[str, ...]


class Publisher:
    """Commits and pushes of the checkout `guard` keeps, after the agents of `sessions`."""

    def __init__(
        self,
        guard: CredentialGuard,
        sessions: AgentSessions,
        *,
        dry_run: bool = False,
        artifacts_dir: Path | None = None,
        secrets: Iterable[str] = (),
        allowance: PushAllowance | None = None,
        runner_temp: str | None = None,
    ) -> None:
        self._guard = guard
        self._sessions = sessions
        self.dry_run = dry_run
        self.artifacts_dir = artifacts_dir
        """Where unpushed commits are saved when a push fails for good (None: nowhere)."""
        self.runner_temp = runner_temp
        """The step's `RUNNER_TEMP`: what is saved is named as later steps see it."""
        self._secrets = tuple(secret for secret in secrets if secret)
        self.unpushed: UnpushedWork | None = None
        self.flagged: list[Leak] = []
        """Token-shaped strings found in what was pushed (file and kind), for people to check."""
        self.withheld: list[str] = []
        """Files the agents wrote that were not committed because they hold credentials."""
        self.held_back = HoldBack(
            allowance=allowance,
            directory=None if artifacts_dir is None else artifacts_dir / HELD_BACK_DIR,
            secrets=self._secrets,
            runner_temp=runner_temp,
        )
        """Files of the agents' change GitHub would refuse in a push (`allowance`: what the
        token may push): left out of the commits, kept and described."""
        self._pushed: list[str] = []
        """Heads amelia pushed since the first agent ran."""

    @property
    def git(self) -> Git:
        return self._guard.git

    @property
    def published(self) -> list[str] | None:
        """Commits on the server, as amelia knew before agents could write `.git/` and from
        its own pushes since (None: no agent ran)."""
        start = self._sessions.published_at_start
        return None if start is None else [*start, *self._pushed]

    @property
    def all_pushed(self) -> bool:
        """Whether the agents' change is all on origin as far as this run knows: no file
        held back from the push, no commit left unpushed."""
        return self.held_back.work is None and self.unpushed is None

    def commit_agent_work(self, message: str, *, co_author: str | None = None) -> CommittedWork:
        """Commit what the agents created, changed or deleted since before the first one
        ran, and nothing else; files that hold credentials are left out (`withheld`), and
        files GitHub would refuse in a push stay in the worktree (`held_back`)."""
        baseline = self._sessions.baseline or WorktreeBaseline.capture(self.git)
        changes = baseline.changes()
        for path in changes.withheld:
            if path not in self.withheld:
                self.withheld.append(path)
                logger.warning("{} holds credentials by its name: not committed", path)
        paths = self.held_back.split(self.git, changes.paths)
        sha = commit_changes(self.git, paths, message, co_author=co_author)
        return CommittedWork(sha=sha, withheld=changes.withheld)

    def commit_path(self, relative: str, message: str, *, co_author: str | None = None) -> str:
        """Commit `relative` as it is in the worktree; the head sha (unchanged if identical)."""
        # amelia chose the path, so a .gitignore that covers it does not stop the commit.
        return commit_paths(self.git, [relative], message, co_author=co_author, force=True)

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

    def push(self, branch: str) -> str:
        """Push `branch` to origin (skipped in a dry run), authenticated only for this push.

        The commits are searched first: one that holds the value of a secret of this run
        is never pushed (`SecretInChangeError`, naming the file; the work is saved with the
        value masked), a token-shaped string is pushed and recorded in `flagged`.
        Returns the branch's head afterwards: a rebase onto what others pushed meanwhile
        changes it, and links must name the commit origin has."""
        # Not what `refs/remotes` says now: an agent could add a ref there to keep its
        # commits out of the search.
        report = scan_unpushed(self.git, branch, secrets=self._secrets, published=self.published)
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
        if self._sessions.published_at_start is not None:
            self._pushed.append(pushed)
        return pushed

    def _remote(self) -> Git:
        """The authenticated value, for one push: every agent process is stopped first."""
        return self._guard.authenticated(self._sessions.stop_agents())

    def _push_holding_back(self, branch: str) -> None:
        """Push `branch`; when GitHub refuses files amelia knows how to hold back (a
        workflow file the token may not change, a file over its size limit), push the rest
        once more without them (`HoldBack.after_refusal`)."""
        try:
            push(self._remote(), branch)
            return
        except GitError as error:
            refusal = read_refusal(error.stderr)
            if not self.held_back.after_refusal(
                self.git, branch, refusal, published=self.published
            ):
                raise
        push(self._remote(), branch)

    def _keep_unpushed(self, branch: str, error: GitError) -> GitError:
        """Save the commits the failed push would have published, with every secret of the
        run masked (and every line GitHub's push protection pointed at); the error says
        where."""
        if self.artifacts_dir is None:
            return error
        refusal = read_refusal(error.stderr)
        try:
            self.unpushed = save_unpushed(
                self.git,
                branch,
                self.artifacts_dir,
                secrets=self._secrets,
                refusal=refusal,
                runner_temp=self.runner_temp,
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
