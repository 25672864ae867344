"""The held-back block: what a run did not push, why, its change, and what would let
amelia push it.

The same block goes into the pull request's description and the progress comment; the job
summary and the review's body say it shorter. The change is shown as one patch in a
collapsed `<details>` block the maintainer can apply (`git apply`), unless it is longer than
`INLINE_LIMIT` (GitHub caps a description or comment at 65,536 characters) or a file
holds a credential: then the block says so and where the patch was saved. Every caller
passes the text through the run's `Redactor` before posting it.
"""

from __future__ import annotations

from pathlib import Path

from amelia.action.checkout._artifacts import saved_at, workflow_path
from amelia.action.checkout._held_back import HeldBackWork
from amelia.git import MAX_FILE_BYTES, HeldFile, display_path
from amelia.text import code_fence, inline_code, one_line

__all__ = [
    "INLINE_LIMIT",
    "PERMISSION_HINT",
    "held_back_lines",
    "held_back_summary",
    "large_file_note",
    "verdict_note",
]

INLINE_LIMIT = 30_000
"""Characters of held-back patch shown inline, leaving room for the rest of a description."""
PERMISSION_HINT = (
    "To let amelia push workflow files, give the `github_token` input a token with the "
    "`workflows` permission: a personal access token (classic) with the `workflow` scope, a "
    "fine-grained personal access token with *Workflows: Read and write*, or a GitHub App "
    "installation token whose App has *Workflows: Read and write*."
)


def _keep_hint(work: HeldBackWork, *, it: str = "it") -> str:
    """The upload step that keeps what was saved (`it`), naming the directory of every run."""
    if work.directory is None:
        return ""
    base = workflow_path(str(work.directory.parent.parent), runner_temp=work.runner_temp)
    return (
        f"an `actions/upload-artifact` step after amelia's with `if: always()` and "
        f"`path: {base.rstrip('/')}/` keeps {it} with the workflow run (see the example "
        "workflows)"
    )


def _at(work: HeldBackWork, path: Path) -> str:
    return saved_at(str(path), runner_temp=work.runner_temp)


_MIB = 1024 * 1024


def _size(size: int) -> str:
    """A file's size with every byte visible: `100.00 MiB, 104,857,601 bytes`."""
    if size < _MIB:
        return f"{size:,} bytes"
    return f"{size / _MIB:.2f} MiB, {size:,} bytes"


def _too_large(item: HeldFile) -> str:
    if item.size is None or item.size > MAX_FILE_BYTES:
        return "over 100 MiB"
    return "too large for this server"


def _name(path: str) -> str:
    return inline_code(display_path(path))


def _reason(work: HeldBackWork, item: HeldFile) -> str:
    if item.reason == "workflow":
        return (
            "a workflow file: GitHub refuses changes to workflows from a token without the "
            f"`workflows` permission, and {work.token or 'the token amelia pushed with has none'}"
        )
    size = f"{_size(item.size)}; " if item.size is not None else ""
    if item.size is not None and item.size <= MAX_FILE_BYTES:
        # Held back by GitHub's own GH001: a server with a lower limit than github.com's.
        return (
            f"too large for this server ({size}it refused the file: `GH001: Large files "
            "detected`); store it with Git LFS or keep it out of the repository"
        )
    return (
        f"too large for GitHub ({size}GitHub refuses files over 100 MiB, "
        f"{MAX_FILE_BYTES:,} bytes: `GH001: Large files detected`); store it with Git LFS or "
        "keep it out of the repository"
    )


def _file_line(work: HeldBackWork, item: HeldFile) -> str:
    line = f"- {_name(item.path)}: {_reason(work, item)}."
    why = work.hidden.get(item.path)
    if why:
        saved = work.saved(item.path)
        masked = ", credentials masked" if why.startswith("it holds") else ""
        where = f" amelia saved it as {_at(work, saved)}{masked}." if saved else ""
        line += f" Not shown here: {why}.{where}"
    return line


def _shown_inline(work: HeldBackWork, inline_limit: int = INLINE_LIMIT) -> bool:
    return bool(work.shown) and len(work.patch) <= inline_limit


def held_back_lines(
    work: HeldBackWork, *, inline_limit: int = INLINE_LIMIT, rest_pushed: bool = True
) -> list[str]:
    """The block for the pull request's description and the progress comment; without
    `rest_pushed` the push of the rest of the change failed too (the run's reason says why)."""
    outcome = (
        "so amelia pushed the rest of the change without them."
        if rest_pushed
        else "so amelia left them out of its commits, and the push of the rest failed as "
        "well (see the reason above)."
    )
    lines = [
        "> [!WARNING]",
        f"> **Not pushed:** GitHub would refuse these files in a push made with this token, "
        f"{outcome}",
        "",
        *(_file_line(work, item) for item in work.files),
    ]
    if work.refusal:
        lines += [
            "",
            "GitHub refused the push that carried them:",
            "",
            f"> {one_line(work.refusal, limit=600)}",
        ]
    if any(item.reason == "workflow" for item in work.files):
        lines += ["", PERMISSION_HINT]
    lines.append("")
    names = ", ".join(_name(path) for path in work.shown)
    saved = work.patch_path
    where = (
        f"amelia saved it as {_at(work, saved)}; {_keep_hint(work)}."
        if saved
        else "it could not be saved."
    )
    if _shown_inline(work, inline_limit):
        fence = code_fence(work.patch)
        lines += [
            "<details>",
            f"<summary>The held-back change of {names} (apply with <code>git apply</code>)"
            "</summary>",
            "",
            f"{fence}diff",
            work.patch.rstrip("\n"),
            fence,
            "",
            "</details>",
        ]
        if saved:
            lines += ["", f"The same patch: {where}"]
    elif work.shown:
        lines.append(
            f"The held-back change of {names} is {len(work.patch):,} characters, too long to "
            f"show here: {where}"
        )
    elif work.directory is not None:
        files = _at(work, work.directory / "files")
        lines.append(
            f"amelia saved each held-back file (credentials masked) under {files}; "
            f"{_keep_hint(work, it='them')}."
        )
    else:
        lines.append("amelia could not save them.")
    return lines


def held_back_summary(work: HeldBackWork) -> str:
    """A job summary section: the files, why, and where they were saved."""
    lines = ["### Not pushed", "", *(_file_line(work, item) for item in work.files), ""]
    if work.directory is not None:
        patch = (
            f"The patch of {', '.join(_name(path) for path in work.shown)}: "
            f"{_at(work, work.patch_path)} (`git apply`); "
            if work.patch_path is not None
            else ""
        )
        lines += [
            f"{patch}each held-back file as the agents left it (credentials masked) under "
            f"{_at(work, work.directory / 'files')}; {_keep_hint(work, it='them')}.",
            "",
        ]
    return "\n".join(lines)


def verdict_note(work: HeldBackWork) -> str:
    """What the review says about the files that could not be pushed."""
    files = "; ".join(
        f"{_name(item.path)} ({'workflow file' if item.reason == 'workflow' else _too_large(item)})"
        for item in work.files
    )
    if _shown_inline(work) and not work.hidden:
        described = "the pull request's description shows their change as a patch"
    elif _shown_inline(work):
        names = ", ".join(_name(path) for path in work.shown)
        described = (
            f"the pull request's description shows the change of {names} as a patch, and "
            "says why it does not show the others' and where amelia saved them"
        )
    else:
        described = (
            "the pull request's description does not show their change; it says why, and "
            "where amelia saved them"
        )
    return (
        f"_Not pushed: {files}. This review covers them with the rest of the change; "
        f"{described}. amelia does not approve a change that is not all on the branch._"
    )


def large_file_note(large: dict[str, int]) -> str | None:
    """A note on files pushed although GitHub warns about their size (over 50 MiB)."""
    if not large:
        return None
    files = ", ".join(f"{_name(path)} ({_size(size)})" for path, size in large.items())
    return (
        f"Pushed, but larger than GitHub's recommended 50 MiB: {files}. Git LFS keeps large "
        "files out of the repository's history."
    )
