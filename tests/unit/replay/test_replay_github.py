"""The replay's GitHub answers a read as the recorded run's GitHub did: about the
replay's own commit where the recorded run asked about the one it stands for, and without
adding to the port's module what pydantic makes of a generic answer type."""

from __future__ import annotations

from pathlib import Path

import pytest

import amelia.github.port
from amelia.errors import GitHubError
from amelia.replay.format import GitHubCall, PushedCommit
from amelia.replay.github import ReplayGitHub
from amelia.replay.stand_ins import StandIns

RECORDED, REPLAYED = "a" * 40, "c" * 40
RUN = {
    "id": 7,
    "name": "CI",
    "workflow_id": 1,
    "head_sha": RECORDED,
    "event": "workflow_dispatch",
    "status": "completed",
    "conclusion": "success",
}


def _github(tmp_path: Path) -> ReplayGitHub:
    call = GitHubCall(
        index=1,
        operation="list_workflow_runs",
        kind="read",
        arguments={"head_sha": RECORDED, "event": None, "etag": None},
        result={"etag": '"e1"', "items": [RUN]},
    )
    refused = GitHubCall(
        index=2,
        operation="list_check_runs",
        kind="read",
        arguments={"ref": RECORDED},
        error="GitHubError",
        message=f"GitHub refused the check runs of {RECORDED}",
    )
    made = [PushedCommit(branch="amelia/issue-1", sha=REPLAYED, tree="1" * 40, subject="Do")]
    recorded = [PushedCommit(branch="amelia/issue-1", sha=RECORDED, tree="1" * 40, subject="Do")]
    stand_ins = StandIns(recorded, lambda: made)
    return ReplayGitHub([call, refused], directory=tmp_path / "writes", stand_ins=stand_ins)


async def test_the_ci_of_the_replays_commit_is_the_recorded_ci_of_the_one_it_stands_for(
    tmp_path: Path,
) -> None:
    polled = await _github(tmp_path).list_workflow_runs(REPLAYED)

    assert polled.etag == '"e1"'
    assert polled.items is not None
    assert [(run.id, run.head_sha) for run in polled.items] == [(7, REPLAYED)]


async def test_a_recorded_error_names_the_replays_commit(tmp_path: Path) -> None:
    with pytest.raises(GitHubError) as refused:
        await _github(tmp_path).list_check_runs(REPLAYED)

    assert refused.value.message == f"GitHub refused the check runs of {REPLAYED}"


async def test_a_generic_answer_adds_nothing_to_the_ports_module(tmp_path: Path) -> None:
    await _github(tmp_path).list_workflow_runs(REPLAYED)

    assert [name for name in vars(amelia.github.port) if "[" in name] == []
