"""Keep work whose push failed: the unpushed commits as a patch, and the files they touch.

When origin cannot be reached or keeps refusing a branch, the commits exist only in the
runner's checkout, which is thrown away when the job ends. They are saved under
`$RUNNER_TEMP/amelia-artifacts/<run id>/` (`unpushed.patch`, applicable with `git am`, and
`files/<path>` with each changed file's new content) so an `actions/upload-artifact` step
can keep them, and the job summary says so. Every spelling of a secret of the run and every
string shaped like a credential (see `amelia.git.mask_credentials`) is masked in what is
saved (an artifact of a public repository's run can be downloaded by anyone signed in): a
push refused because the change holds a secret is saved too, without it; so is every line
GitHub's push protection pointed at. The patch is shown in the job summary, and on the
progress comment when it is short and held nothing shaped like a credential, unless
GitHub's push protection refused it: it found a secret amelia's own search did not know,
so the patch is only saved.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from amelia.action.checkout._artifacts import keep_step, saved_at
from amelia.git import (
    PushRefusal,
    Repo,
    credential_kinds,
    display,
    mask_credentials,
    run_git,
    run_git_bytes,
    run_git_paths,
    secret_lines,
    validate_branch_name,
)
from amelia.redaction import Redactor
from amelia.text import code_fence

__all__ = [
    "ARTIFACTS_DIR_NAME",
    "COMMENT_PATCH_LIMIT",
    "KEEP_STEP",
    "PATCH_NAME",
    "SUMMARY_PATCH_LIMIT",
    "UnpushedWork",
    "save_unpushed",
]


ARTIFACTS_DIR_NAME = "amelia-artifacts"
PATCH_NAME = "unpushed.patch"
SUMMARY_PATCH_LIMIT = 60_000
"""Characters of the patch shown in the job summary (GitHub caps a summary at 1 MiB)."""
COMMENT_PATCH_LIMIT = 20_000
"""Characters of a patch small enough to show on the progress comment."""
KEEP_STEP = keep_step("${{ runner.temp }}/amelia-artifacts", runner_temp=None)
"""The upload step for the host flavour's default place (see `keep_step`; the summary names
the directory this run saved to)."""


class UnpushedWork(BaseModel):
    """Commits of `branch` that reached no remote, saved under `directory`."""

    model_config = ConfigDict(frozen=True)

    branch: str
    directory: Path
    patch: str
    files: tuple[str, ...]
    holds_secret: bool = False
    """GitHub's push protection refused it: it holds a secret amelia's search did not
    know, so it is only saved, never shown."""
    held_credentials: bool = False
    """It held strings shaped like credentials (masked in `patch` and the saved files)."""
    runner_temp: str | None = None
    """The step's `RUNNER_TEMP`, to name `directory` as later steps of the job see it."""

    @property
    def patch_path(self) -> Path:
        return self.directory / PATCH_NAME

    def summary_markdown(self, redactor: Redactor) -> str:
        """A job summary section: where the patch is and how to keep it, and the patch
        itself unless GitHub found a secret in it."""
        lines = [
            f"### Unpushed work on `{self.branch}`",
            "",
            f"The push failed, so the commits are saved as {self._at(self.patch_path)} "
            f"(apply with `git am`), each changed file under {self._at(self.directory / 'files')}.",
            "",
            keep_step(str(self.directory.parent), runner_temp=self.runner_temp),
            "",
        ]
        if self.holds_secret:
            lines += [
                "GitHub's push protection found a secret in this change, so the patch is not "
                "shown here; the lines it pointed at are masked in the saved patch.",
                "",
            ]
        else:
            lines += _patch_block("Patch", self.patch, SUMMARY_PATCH_LIMIT)
        return redactor.redact("\n".join(lines))

    def _at(self, path: Path) -> str:
        return saved_at(str(path), runner_temp=self.runner_temp)

    def comment_markdown(self, redactor: Redactor) -> str | None:
        """The patch for the progress comment, collapsed; None when it may not be posted:
        GitHub found a secret in it, it holds a string shaped like a credential, or it is
        longer than `COMMENT_PATCH_LIMIT`."""
        if self.holds_secret or self.held_credentials or len(self.patch) > COMMENT_PATCH_LIMIT:
            return None
        title = f"The unpushed commits of {self.branch} (apply with <code>git am</code>)"
        return redactor.redact("\n".join(_patch_block(title, self.patch, COMMENT_PATCH_LIMIT)))


def _patch_block(title: str, patch: str, limit: int) -> list[str]:
    shown = patch[:limit]
    cut = "" if len(shown) == len(patch) else "\n… (cut; the whole patch is saved)\n"
    fence = code_fence(shown)
    return [
        f"<details><summary>{title}</summary>",
        "",
        f"{fence}diff",
        shown.rstrip("\n") + cut,
        fence,
        "",
        "</details>",
        "",
    ]


def _unpushed_commits(repo: Repo, branch: str) -> list[str]:
    out = run_git(["rev-list", "--reverse", f"refs/heads/{branch}", "--not", "--remotes"], repo)
    return out.split()


def save_unpushed(
    repo: Repo,
    branch: str,
    directory: Path,
    *,
    secrets: Iterable[str] = (),
    refusal: PushRefusal | None = None,
    runner_temp: str | None = None,
) -> UnpushedWork | None:
    """Save the commits of `branch` that no remote-tracking ref holds; None when none.

    The patch and the files are saved byte for byte, whatever their encoding, except that
    every spelling of `secrets` and every string shaped like a credential is masked. When
    GitHub's push protection refused them (`refusal`), every line it pointed at is masked
    too (see `UnpushedWork.holds_secret`). `runner_temp` (the step's `RUNNER_TEMP`) names the
    directory for later steps (see `amelia.action.checkout._artifacts`)."""
    holds_secret = refusal is not None and refusal.kind == "secret"
    if refusal is not None and refusal.locations:
        secrets = [*secrets, *secret_lines(repo, refusal.locations)]
    secrets = tuple(secrets)
    validate_branch_name(branch)
    commits = _unpushed_commits(repo, branch)
    if not commits:
        return None
    parent = run_git(["rev-parse", "--verify", "--quiet", f"{commits[0]}^"], repo, ok_codes=(0, 1))
    if parent.strip():
        span = [f"{commits[0]}^..refs/heads/{branch}"]
        listing = ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", span[0], "--"]
    else:  # the branch's first commit is unpushed
        span = ["--root", f"refs/heads/{branch}"]
        listing = ["ls-tree", "-r", "-z", "--name-only", f"refs/heads/{branch}"]
    raw = run_git_bytes(["format-patch", "--stdout", "--no-color", *span], repo)
    held_credentials = bool(credential_kinds(raw))
    patch = mask_credentials(raw, secrets)
    changed = run_git_paths(listing, repo)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PATCH_NAME).write_bytes(patch)
    for path in changed:
        shown = run_git_bytes(["show", f"refs/heads/{branch}:{path}"], repo)
        content = mask_credentials(shown, secrets)
        target = directory / "files" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return UnpushedWork(
        branch=branch,
        directory=directory,
        patch=display(patch),
        files=tuple(changed),
        holds_secret=holds_secret,
        held_credentials=held_credentials,
        runner_temp=runner_temp,
    )
