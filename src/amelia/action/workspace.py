"""The checkout the agents work in, as the Action needs it.

The runner's checkout belongs to another uid (git needs `safe.directory`), and
actions/checkout leaves the job's token in `.git/config` as an `http.<url>.extraheader`,
where any agent tool could read it. `Workspace.prepare()` marks the directory safe and sets
the bot identity on a runner (outside one, a user's clone and git configuration are left as
they are: amelia's own commits name the bot per command), and removes those headers
before an agent runs; our own pushes and reads
of origin pass the token to git through `GIT_CONFIG_*` variables in the environment of
those git processes only (`amelia.git.with_config`), never in this process's environment.
`Workspace.restore_credentials()` puts the removed headers back once no agent can run any
more, so later steps of the job (and actions/checkout's own post-step cleanup) find
`.git/config` as actions/checkout left it.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from amelia.action.unpushed import UnpushedWork, save_unpushed
from amelia.errors import GitError
from amelia.git import (
    commit_paths,
    configure_identity,
    head_sha,
    mark_safe_directory,
    push,
    run_git,
    with_config,
)

__all__ = ["Workspace", "basic_auth_header"]


_EXTRAHEADER_KEYS = r"^http\..*extraheader$"


def _persisted_credentials(repo: Path) -> list[tuple[str, str]]:
    """The `http.<url>.extraheader` entries of `.git/config`, as (key, value) in file order."""
    # -z: a key ends at a newline and each entry at a NUL, whatever the value holds.
    # Exit 1: no key matches.
    args = ["config", "--local", "-z", "--get-regexp", _EXTRAHEADER_KEYS]
    out = run_git(args, repo, ok_codes=(0, 1))
    entries: list[tuple[str, str]] = []
    for item in out.split("\0"):
        if item:
            key, _newline, value = item.partition("\n")
            entries.append((key, value))
    return entries


def basic_auth_header(token: str) -> str:
    """The header actions/checkout uses: basic auth as `x-access-token:<token>`."""
    encoded = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return f"AUTHORIZATION: basic {encoded}"


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
    ) -> None:
        self.path = path.resolve()
        self.on_runner = on_runner
        """A GitHub runner's throwaway checkout (`GITHUB_ACTIONS=true`), not a user's clone."""
        self._token = token
        self.dry_run = dry_run
        self.artifacts_dir = artifacts_dir
        """Where unpushed commits are saved when a push fails for good (None: nowhere)."""
        self.unpushed: UnpushedWork | None = None
        self.removed_credentials: list[str] = []
        """Config keys removed from `.git/config` by `prepare()` (names, never values)."""
        self._removed_entries: list[tuple[str, str]] = []
        # The removed (key, value) pairs in file order, kept in memory only: agents' tools
        # cannot read this process's memory, and nothing else holds the values meanwhile.

    def prepare(self) -> None:
        """On a runner, trust the directory and commit as amelia[bot]; hide persisted
        credentials."""
        if not (self.path / ".git").exists():
            raise GitError(f"the workspace {self.path} is not a git checkout")
        if self.on_runner:
            # Another uid owns the runner's checkout; the agents' commits name the bot too.
            mark_safe_directory(self.path)
            configure_identity(self.path)
        entries = _persisted_credentials(self.path)
        for key in dict.fromkeys(key for key, _value in entries):
            # Remembered before unsetting, so a failure half-way still restores all removed.
            self._removed_entries.extend(entry for entry in entries if entry[0] == key)
            self.removed_credentials.append(key)
            run_git(["config", "--local", "--unset-all", key], self.path)

    def restore_credentials(self) -> None:
        """Put back exactly the entries `prepare()` removed (once; later calls do nothing).

        Only call it when no agent can run any more: from then on the token is readable in
        `.git/config` again. Our own pushes must be done too, or git would send the header
        twice (once from here, once from `push()`).
        """
        entries, self._removed_entries = self._removed_entries, []
        for key, value in entries:
            run_git(["config", "--local", "--add", key, value], self.path)

    def commit_path(self, relative: str, message: str, *, co_author: str | None = None) -> str:
        """Commit `relative` as it is in the worktree; the head sha (unchanged if identical)."""
        # amelia chose the path, so a .gitignore that covers it does not stop the commit.
        return commit_paths(self.path, [relative], message, co_author=co_author, force=True)

    @contextmanager
    def authenticated(self) -> Iterator[None]:
        """Let git in this block read from origin with the token (private repositories).

        Only git processes started in the block see the token, in their environment; still,
        start no agent inside the block.
        """
        if not self._token:
            yield
            return
        with with_config({"http.extraheader": basic_auth_header(self._token)}):
            yield

    def push(self, branch: str) -> str:
        """Push `branch` to origin (skipped in a dry run), authenticated only for this push.

        Returns the branch's head afterwards: a rebase onto what others pushed meanwhile
        changes it, and links must name the commit origin has."""
        if self.dry_run:
            return head_sha(self.path)
        try:
            with self.authenticated():
                push(self.path, branch)
        except GitError as error:
            raise self._keep_unpushed(branch, error) from None
        return head_sha(self.path)

    def _keep_unpushed(self, branch: str, error: GitError) -> GitError:
        """Save the commits the failed push would have published; the error says where."""
        if self.artifacts_dir is None:
            return error
        try:
            self.unpushed = save_unpushed(self.path, branch, self.artifacts_dir)
        except (GitError, OSError) as saving:
            return GitError(f"{error}; saving the unpushed commits failed too: {saving}")
        if self.unpushed is None:
            return error
        where = self.unpushed.patch_path
        # Location first: the progress comment shortens long reasons.
        return type(error)(
            f"the unpushed commits are saved in {where}; {error}", stderr=error.stderr
        )
