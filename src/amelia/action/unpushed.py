"""Keep work whose push failed: the unpushed commits as a patch, and the files they touch.

When origin cannot be reached or keeps refusing a branch, the commits exist only in the
runner's checkout, which is thrown away when the job ends. They are saved under
`$RUNNER_TEMP/amelia-artifacts/<run id>/` (`unpushed.patch`, applicable with `git am`, and
`files/<path>` with each changed file's new content) so an `actions/upload-artifact` step
can keep them, and shown in the job summary. Every spelling of a secret of the run (see
`amelia.git.mask_secrets`) is masked in what is saved: a push refused because the change
holds a secret is saved too, without it.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from amelia.git import (
    display,
    mask_secrets,
    run_git,
    run_git_bytes,
    run_git_paths,
    validate_branch_name,
)
from amelia.redaction import Redactor
from amelia.text import code_fence

__all__ = [
    "ARTIFACTS_DIR_NAME",
    "PATCH_NAME",
    "SUMMARY_PATCH_LIMIT",
    "UnpushedWork",
    "save_unpushed",
]


ARTIFACTS_DIR_NAME = "amelia-artifacts"
PATCH_NAME = "unpushed.patch"
SUMMARY_PATCH_LIMIT = 60_000
"""Characters of the patch shown in the job summary (GitHub caps a summary at 1 MiB)."""


class UnpushedWork(BaseModel):
    """Commits of `branch` that reached no remote, saved under `directory`."""

    model_config = ConfigDict(frozen=True)

    branch: str
    directory: Path
    patch: str
    files: tuple[str, ...]

    @property
    def patch_path(self) -> Path:
        return self.directory / PATCH_NAME

    def summary_markdown(self, redactor: Redactor) -> str:
        """A job summary section with the patch, so the work survives without the artifact."""
        shown = self.patch[:SUMMARY_PATCH_LIMIT]
        cut = "" if len(shown) == len(self.patch) else "\n… (cut; the whole patch is saved)\n"
        fence = code_fence(shown)
        lines = [
            f"### Unpushed work on `{self.branch}`",
            "",
            f"The push failed, so the commits are saved in `{self.directory}` "
            f"(`{PATCH_NAME}`, apply with `git am`; files under `files/`).",
            "",
            "<details><summary>Patch</summary>",
            "",
            f"{fence}diff",
            shown.rstrip("\n") + cut,
            fence,
            "",
            "</details>",
            "",
        ]
        return redactor.redact("\n".join(lines))


def _unpushed_commits(repo: Path, branch: str) -> list[str]:
    out = run_git(["rev-list", "--reverse", f"refs/heads/{branch}", "--not", "--remotes"], repo)
    return out.split()


def save_unpushed(
    repo: Path, branch: str, directory: Path, *, secrets: Iterable[str] = ()
) -> UnpushedWork | None:
    """Save the commits of `branch` that no remote-tracking ref holds; None when none.

    The patch and the files are saved byte for byte, whatever their encoding, except that
    every spelling of `secrets` is masked."""
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
    patch = mask_secrets(
        run_git_bytes(["format-patch", "--stdout", "--no-color", *span], repo), secrets
    )
    changed = run_git_paths(listing, repo)
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PATCH_NAME).write_bytes(patch)
    for path in changed:
        shown = run_git_bytes(["show", f"refs/heads/{branch}:{path}"], repo)
        content = mask_secrets(shown, secrets)
        target = directory / "files" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    return UnpushedWork(
        branch=branch, directory=directory, patch=display(patch), files=tuple(changed)
    )
