"""The files of a run's change that its pushes leave out, kept and described.

`HoldBack` is asked by the checkout (`amelia.action.checkout.Publisher`) which of the
agents' paths a commit may carry (`split`, before every commit of their work) and what to
do when GitHub refuses a push all the same (`after_refusal`); see `amelia.git.held_back`
for the rules. After each decision the held files are searched like everything amelia
pushes or posts (the values of the run's secrets, strings shaped like credentials) and
saved under `<artifacts>/held-back/`: `held-back.patch` (every held file but those over
GitHub's size limit, for `git apply`) and `files/<path>` (each held file as the agents
left it), every spelling of a secret of the run and every string shaped like a credential
masked (`amelia.git.mask_credentials`): an upload step makes them an artifact, which anyone
signed in to GitHub may download from a public repository. `work` says what was held back,
the patch to show (only of files the search found nothing in), and where it was saved;
`amelia.action.checkout._held_back_report` renders it.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Sequence
from pathlib import Path

from loguru import logger
from pydantic import BaseModel, ConfigDict

from amelia.errors import GitHubError
from amelia.git import (
    WARN_FILE_BYTES,
    Git,
    HeldFile,
    PushAllowance,
    PushRefusal,
    Repo,
    credential_kinds,
    display,
    display_path,
    drop_from_unpushed,
    file_size,
    held_back_diff,
    hold_back,
    is_workflow_file,
    mask_credentials,
    secret_spellings,
    unpushed_paths,
)
from amelia.github.port import GitHubReads
from amelia.github.token_facts import JOB_TOKEN_LOGIN, TokenFacts, may_push_workflows

__all__ = [
    "HELD_BACK_DIR",
    "PATCH_NAME",
    "HeldBackWork",
    "HoldBack",
    "WorkflowPermission",
    "workflow_permission",
    "workflow_permission_asker",
]

HELD_BACK_DIR = "held-back"
PATCH_NAME = "held-back.patch"


async def _token_permission(github: GitHubReads) -> tuple[TokenFacts | None, bool | None]:
    try:
        facts = await github.token_facts()
    except GitHubError as error:
        logger.warning("could not ask GitHub what the token may push: {}", error.message)
        return None, None
    allowed = may_push_workflows(facts)
    logger.info(
        "the token {} workflow files{}",
        {True: "may push", False: "may not push", None: "may or may not push"}[allowed],
        f" (acts as {facts.login})" if facts.login else "",
    )
    return facts, allowed


async def workflow_permission(github: GitHubReads) -> bool | None:
    """Whether the token may push workflow files, as far as GitHub tells (see
    `amelia.github.token_facts`); None when it does not, or cannot be asked."""
    _facts, allowed = await _token_permission(github)
    return allowed


class WorkflowPermission:
    """`workflow_permission` as the question `PushAllowance.ask` puts: a plain call, made
    from the worker thread a commit runs in. The question is asked on the event loop it was
    made on (where the port lives) while that thread waits for the answer; what GitHub said
    about the token is kept (`facts`) to name the token in the held-back texts."""

    def __init__(self, github: GitHubReads) -> None:
        self._github = github
        self._loop = asyncio.get_running_loop()
        self.facts: TokenFacts | None = None

    async def _ask(self) -> bool | None:
        self.facts, allowed = await _token_permission(self._github)
        return allowed

    def __call__(self) -> bool | None:
        try:
            asyncio.get_running_loop()
        except RuntimeError:  # no loop in this thread: a worker thread, as it should be
            return asyncio.run_coroutine_threadsafe(self._ask(), self._loop).result()
        raise RuntimeError("the token's permission must be asked from a worker thread")


def workflow_permission_asker(github: GitHubReads) -> WorkflowPermission:
    """The question `PushAllowance.ask` puts, on this event loop (see `WorkflowPermission`)."""
    return WorkflowPermission(github)


class HeldBackWork(BaseModel):
    """What the last commit of the run left out, and what may be shown of it."""

    model_config = ConfigDict(frozen=True)

    files: tuple[HeldFile, ...]
    patch: str = ""
    """The change of the files in `shown`, as a patch (secrets of the run masked)."""
    shown: tuple[str, ...] = ()
    hidden: dict[str, str] = {}
    """Files whose change is not shown, and why (a credential in it, too large)."""
    directory: Path | None = None
    """Where the patch and the files were saved (None: nowhere)."""
    refusal: str = ""
    """GitHub's words, when it refused a push that amelia had thought it would take."""
    runner_temp: str | None = None
    """The step's `RUNNER_TEMP`, to name `directory` as later steps of the job see it."""
    token: str = ""
    """Which token lacked the permission to change workflows, as far as amelia knows: a
    clause ending the held-back text of a workflow file (empty: nothing known)."""

    @property
    def patch_path(self) -> Path | None:
        """Where the patch of the files in `shown` was saved (None: nowhere, or no file's
        change may be shown, so there is no patch)."""
        return None if self.directory is None or not self.shown else self.directory / PATCH_NAME

    def saved(self, path: str) -> Path | None:
        """Where the held file `path` was saved, as the agents left it."""
        return None if self.directory is None else self.directory / "files" / path


class HoldBack:
    """One run's held-back files: decided before each commit, kept, described."""

    def __init__(
        self,
        *,
        allowance: PushAllowance | None = None,
        directory: Path | None = None,
        secrets: Sequence[str] = (),
        runner_temp: str | None = None,
    ) -> None:
        self.allowance = allowance or PushAllowance()
        self.directory = directory
        self.runner_temp = runner_temp
        self._secrets = tuple(secrets)
        self.work: HeldBackWork | None = None
        """The held files of the last commit (None: nothing held back)."""
        self.large: dict[str, int] = {}
        """Files pushed although GitHub warns about their size (path: bytes)."""
        self._refusal = ""
        self._token_kind = ""

    @property
    def files(self) -> tuple[HeldFile, ...]:
        return () if self.work is None else self.work.files

    def split(self, repo: Repo, paths: Sequence[str]) -> list[str]:
        """The paths of the agents' change a commit may carry; the others are recorded."""
        keep, held = hold_back(repo, paths, self.allowance)
        for path in keep:
            size = file_size(repo, path)
            if size is not None and size > WARN_FILE_BYTES:
                self.large[path] = size
        for item in held:
            logger.warning(
                "{} is held back from the push: {}", display_path(item.path), item.reason
            )
        self._record(repo, held)
        return keep

    def after_refusal(
        self,
        repo: Repo,
        branch: str,
        refusal: PushRefusal | None,
        *,
        published: Sequence[str] | None,
    ) -> bool:
        """After GitHub refused a push: when it refused files amelia knows how to hold
        back (workflow files, files over its size limit) and the unpushed commits change
        some, take them out of those commits (see `drop_from_unpushed`) and return True:
        the rest may be pushed once more. False for any other refusal."""
        if refusal is None or refusal.kind not in ("workflow", "too_large"):
            return False
        changed = unpushed_paths(repo, branch, published)
        if refusal.kind == "workflow":
            named = [path for path in changed if is_workflow_file(path)]
        else:
            named = [path for path in changed if path in refusal.files]
        if not named:
            return False
        if refusal.kind == "workflow":
            self.allowance.forbid_workflows()
        self.allowance.refused.update(refusal.files)
        _keep, held = hold_back(repo, changed, self.allowance)
        if not held:
            return False
        if drop_from_unpushed(repo, branch, [h.path for h in held], published=published) is None:
            return False
        self._refusal = refusal.said
        self._token_kind = refusal.token_kind or self._token_kind
        logger.warning(
            "GitHub refused {}: pushing the rest without it",
            ", ".join(display_path(item.path) for item in held),
        )
        self._record(repo, [*self.files, *(h for h in held if h not in self.files)])
        return True

    def _record(self, repo: Repo, held: Sequence[HeldFile]) -> None:
        if not held:
            self.work = None
            if self.directory is not None and self.directory.exists():
                shutil.rmtree(self.directory, ignore_errors=True)
            return
        hidden: dict[str, str] = {}
        shown: list[str] = []
        for item in held:
            why = self._why_hidden(repo, item)
            if why:
                hidden[item.path] = why
            else:
                shown.append(item.path)
        patch = mask_credentials(held_back_diff(repo, shown), self._secrets)
        directory = self._save(repo, held, patch)
        self.work = HeldBackWork(
            files=tuple(held),
            patch=display(patch),
            shown=tuple(shown),
            hidden=hidden,
            directory=directory,
            refusal=self._refusal,
            runner_temp=self.runner_temp,
            token=self._token(),
        )

    def _token(self) -> str:
        """Which token may not change workflows, in words, from what GitHub said."""
        ask = self.allowance.ask
        facts = ask.facts if isinstance(ask, WorkflowPermission) else None
        if facts is not None and facts.login == JOB_TOKEN_LOGIN:
            return "amelia pushed with the job's `GITHUB_TOKEN`, which never has it"
        if facts is not None and facts.scopes is not None:
            scopes = ", ".join(f"`{scope}`" for scope in facts.scopes) or "none"
            return (
                "amelia pushed with a personal access token (classic) or OAuth token whose "
                f"scopes ({scopes}) lack `workflow`"
            )
        if self._token_kind:
            return (
                f"GitHub refused it from the token amelia pushed with ({self._token_kind}'s), "
                "which has no such permission"
            )
        return "the token amelia pushed with has none"

    def _why_hidden(self, repo: Repo, item: HeldFile) -> str:
        """Why the change of `item` may not be shown (empty: it may)."""
        if item.reason == "too_large":
            return "too large to show"
        if item.size is None:
            return ""
        data = (Git.of(repo).path / item.path).read_bytes()
        for secret in self._secrets:
            if any(spelling in data for spelling in secret_spellings(secret)):
                return "it holds the value of a secret of this run"
        kinds = credential_kinds(data)
        return f"it holds a string shaped like a {kinds[0]}" if kinds else ""

    def _save(self, repo: Repo, held: Sequence[HeldFile], patch: bytes) -> Path | None:
        if self.directory is None:
            return None
        try:
            if self.directory.exists():
                shutil.rmtree(self.directory)
            (self.directory / "files").mkdir(parents=True)
            if patch:
                (self.directory / PATCH_NAME).write_bytes(patch)
            for item in held:
                source = Git.of(repo).path / item.path
                if item.size is None or not source.is_file():
                    continue
                target = self.directory / "files" / item.path
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(mask_credentials(source.read_bytes(), self._secrets))
        except OSError as error:
            logger.warning("could not save the held-back files in {}: {}", self.directory, error)
            return None
        return self.directory
