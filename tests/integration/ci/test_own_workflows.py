"""amelia's own workflows (those whose jobs use the amelia action, such as every example of
docs/examples copied into a repository) are never the repository's CI: amelia never
dispatches or waits for them, and never tells the maintainer to add a dispatch to them."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.ci import CiConfig
from amelia.ci.run import ADD_DISPATCH_NOTE, OWN_WORKFLOWS_NOTE
from amelia.github.workflows import runs_amelia
from amelia.testing.github import GitHubState, InMemoryGitHub, RunScript
from tests.integration.ci.test_run_ci import BRANCH, CI, JOB_TOKEN, NO_DISPATCH, REPO, Clock, origin
from tests.integration.ci.test_run_ci import _run as run_ci_at

EXAMPLES = Path(__file__).parents[3] / "docs" / "examples"
EXAMPLE_FILES = {path.name: path.read_text(encoding="utf-8") for path in EXAMPLES.glob("*.yml")}
AMELIA_WITH_DISPATCH = """name: amelia
on:
  pull_request:
  workflow_dispatch:
    inputs:
      command: {type: string}
jobs:
  amelia:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: octo/amelia@v1
"""


@pytest.mark.parametrize(
    ("uses", "expected"),
    [
        ("your-org/amelia@v1", True),
        ("Your-Org/Amelia@0123456789abcdef0123456789abcdef01234567", True),
        ("your-org/amelia/host@v1", True),
        ("docker://ghcr.io/your-org/amelia:1.2.0", True),
        ("actions/checkout@v4", False),
        ("your-org/amelia-tools@v1", False),
        ("./.github/actions/build", False),
    ],
)
def test_a_workflow_is_amelias_own_when_a_job_uses_the_action(uses: str, expected: bool) -> None:
    step = f"name: x\non: push\njobs:\n  a:\n    steps:\n      - uses: {uses}\n"
    job = f"name: x\non: push\njobs:\n  a:\n    uses: {uses}\n"
    assert runs_amelia(step) is expected
    assert runs_amelia(job) is expected


def test_every_example_that_runs_amelia_is_recognised() -> None:
    running = {name for name, text in EXAMPLE_FILES.items() if runs_amelia(text)}
    assert running == set(EXAMPLE_FILES) - {"amelia-ci-failed.yml"}  # it runs `gh` only
    assert not runs_amelia(CI) and not runs_amelia("not: [yaml") and not runs_amelia("")


async def test_the_advice_to_add_a_dispatch_names_only_the_repositorys_ci(
    tmp_path: Path,
) -> None:
    bare, head = origin(tmp_path, {"ci.yml": NO_DISPATCH, **EXAMPLE_FILES})
    state = GitHubState()
    state.add_repo(REPO, bare_path=bare)

    report = await run_ci_at(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock())

    assert report is not None and not report.ran
    assert report.note == ADD_DISPATCH_NOTE.format(names="`ci.yml`")
    assert state.actions(REPO).dispatches == []


async def test_amelia_s_own_workflow_is_never_dispatched_even_when_it_accepts_a_dispatch(
    tmp_path: Path,
) -> None:
    bare, head = origin(tmp_path, {"ci.yml": CI, "amelia.yml": AMELIA_WITH_DISPATCH})
    state = GitHubState()
    state.add_repo(REPO, bare_path=bare)
    state.script_runs(REPO, "ci.yml", RunScript(reads=1))

    report = await run_ci_at(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock())

    assert state.actions(REPO).dispatches == [(".github/workflows/ci.yml", BRANCH)]
    assert report is not None and [run.workflow for run in report.runs] == ["CI"]


async def test_naming_amelia_s_own_workflow_under_ci_workflows_is_refused_with_a_note(
    tmp_path: Path,
) -> None:
    bare, head = origin(tmp_path, {"ci.yml": CI, "amelia.yml": AMELIA_WITH_DISPATCH})
    state = GitHubState()
    state.add_repo(REPO, bare_path=bare)
    config = CiConfig(workflows=("amelia.yml",), timeout_minutes=1)

    report = await run_ci_at(InMemoryGitHub(state, REPO), head, JOB_TOKEN, Clock(), config)

    assert state.actions(REPO).dispatches == []
    assert report is not None and not report.ran
    assert report.note == OWN_WORKFLOWS_NOTE.format(names="`amelia.yml`")
