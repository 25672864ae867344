"""Where the files amelia saves for an upload step are, as a later step of the job names them.

amelia saves unpushed commits and held-back files under `<base>/<run id>/` (see
`amelia.config.Settings.artifacts_dir`). In the host flavour `<base>` is under
`$RUNNER_TEMP`, which a workflow names `${{ runner.temp }}`. In the container flavour the
runner mounts its directories into the action's container (actions/runner's
`ContainerActionHandler.cs`): `/github/home` is the host's `$RUNNER_TEMP/_github_home`,
`/github/runner_temp` (runners since v2.329) the host's `$RUNNER_TEMP` and
`/github/workspace` the workspace, so a path amelia wrote there is named in a later step by
the expression `workflow_path` gives. The job summary names both, and the upload step to add.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from amelia.text import inline_code

__all__ = ["CONTAINER_MOUNTS", "keep_step", "saved_at", "workflow_path"]

CONTAINER_MOUNTS: tuple[tuple[str, str], ...] = (
    ("/github/home", "${{ runner.temp }}/_github_home"),
    ("/github/runner_temp", "${{ runner.temp }}"),
    ("/github/workspace", "${{ github.workspace }}"),
)
"""A container action's mount points and what a later step of the job calls them."""


def _under(path: PurePosixPath, root: str) -> PurePosixPath | None:
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def _join(base: str, rest: PurePosixPath) -> str:
    return base if str(rest) == "." else f"{base}/{rest}"


def workflow_path(path: str, *, runner_temp: str | None) -> str:
    """`path` (where amelia saved something) as a later step of the job names it: under a
    container mount or under `runner_temp` (the step's `RUNNER_TEMP`) as a `${{ … }}`
    expression, else as it is."""
    pure = PurePosixPath(path)
    for mount, expression in CONTAINER_MOUNTS:
        rest = _under(pure, mount)
        if rest is not None:
            return _join(expression, rest)
    if runner_temp:
        rest = _under(pure, runner_temp)
        if rest is not None:
            return _join("${{ runner.temp }}", rest)
    return path


def saved_at(path: str, *, runner_temp: str | None) -> str:
    """`path` in inline code, and what a later step calls it when that differs because the
    path is inside amelia's container."""
    later = workflow_path(path, runner_temp=runner_temp)
    shown = inline_code(path)
    if any(_under(PurePosixPath(path), mount) is not None for mount, _ in CONTAINER_MOUNTS):
        return f"{shown} (for later steps of the job: {inline_code(later)})"
    return shown


def keep_step(base: str, *, runner_temp: str | None) -> str:
    """The upload step that keeps everything saved under `base` (the artifacts directory of
    every run) after the job ends."""
    upload = workflow_path(base, runner_temp=runner_temp).rstrip("/") + "/"
    return (
        "To keep it after the job, add an `actions/upload-artifact` step after amelia's with "
        f"`if: always()` and `path: {upload}` (the example workflows have one); the runner "
        "deletes its temporary files when the job ends."
    )
