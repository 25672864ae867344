"""Where saved files are for later steps of the job: the container's mounts and
`$RUNNER_TEMP` as a workflow names them, in the upload step the job summary suggests."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.action.checkout._artifacts import keep_step, saved_at, workflow_path
from amelia.action.checkout._unpushed import UnpushedWork
from amelia.redaction import Redactor

HOST_TEMP = "/home/runner/work/_temp"


@pytest.mark.parametrize(
    ("path", "runner_temp", "expected"),
    [
        # The container flavour: actions/runner's mounts.
        (
            "/github/home/amelia-artifacts",
            HOST_TEMP,
            "${{ runner.temp }}/_github_home/amelia-artifacts",
        ),
        (
            "/github/runner_temp/amelia-artifacts/7",
            "/github/runner_temp",
            "${{ runner.temp }}/amelia-artifacts/7",
        ),
        ("/github/workspace/out", HOST_TEMP, "${{ github.workspace }}/out"),
        # The host flavour: under the step's RUNNER_TEMP.
        (f"{HOST_TEMP}/amelia-artifacts", HOST_TEMP, "${{ runner.temp }}/amelia-artifacts"),
        (HOST_TEMP, HOST_TEMP, "${{ runner.temp }}"),
        # Anywhere else (AMELIA_ARTIFACTS_DIR): as it is.
        ("/srv/kept", HOST_TEMP, "/srv/kept"),
        ("/home/runner/work/_temporary/x", HOST_TEMP, "/home/runner/work/_temporary/x"),
        ("/srv/kept", None, "/srv/kept"),
    ],
)
def test_a_saved_path_is_named_as_a_later_step_names_it(
    path: str, runner_temp: str | None, expected: str
) -> None:
    assert workflow_path(path, runner_temp=runner_temp) == expected


def test_the_upload_step_names_the_directory_amelia_saved_to() -> None:
    host = keep_step(f"{HOST_TEMP}/amelia-artifacts", runner_temp=HOST_TEMP)
    assert "`path: ${{ runner.temp }}/amelia-artifacts/`" in host and "_github_home" not in host
    container = keep_step("/github/home/amelia-artifacts", runner_temp=HOST_TEMP)
    assert "`path: ${{ runner.temp }}/_github_home/amelia-artifacts/`" in container
    assert saved_at("/github/home/a/p.patch", runner_temp=HOST_TEMP) == (
        "`/github/home/a/p.patch` (for later steps of the job: "
        "`${{ runner.temp }}/_github_home/a/p.patch`)"
    )
    assert saved_at(f"{HOST_TEMP}/a/p.patch", runner_temp=HOST_TEMP) == f"`{HOST_TEMP}/a/p.patch`"


@pytest.mark.parametrize(
    ("base", "runner_temp", "upload"),
    [
        (f"{HOST_TEMP}/amelia-artifacts", HOST_TEMP, "${{ runner.temp }}/amelia-artifacts/"),
        (
            "/github/home/amelia-artifacts",
            HOST_TEMP,
            "${{ runner.temp }}/_github_home/amelia-artifacts/",
        ),
    ],
)
def test_the_unpushed_work_summary_names_the_upload_path_of_its_flavour(
    base: str, runner_temp: str, upload: str
) -> None:
    work = UnpushedWork(
        branch="amelia/issue-1",
        directory=Path(base) / "4242",
        patch="diff\n",
        files=("a.py",),
        runner_temp=runner_temp,
    )

    summary = work.summary_markdown(Redactor())

    assert f"`path: {upload}`" in summary
    assert f"{base}/4242/unpushed.patch" in summary
    assert ("_github_home" in summary) == base.startswith("/github")
