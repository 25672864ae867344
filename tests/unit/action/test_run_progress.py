"""A mode's progress goes to the progress comment once the engine opened it, nowhere before."""

from __future__ import annotations

import pytest

from amelia.action.progress import RunProgress
from amelia.core.types import StreamEvent, StreamEventType
from amelia.redaction import Redactor
from amelia.testing.github import GitHubState, InMemoryGitHub

REPO = "octo/app"


def _github() -> InMemoryGitHub:
    state = GitHubState()
    state.add_repo(REPO)
    state.add_issue(REPO, "an issue")
    return InMemoryGitHub(state, REPO)


async def _open(progress: RunProgress, github: InMemoryGitHub) -> None:
    await progress.open(
        github,
        Redactor(),
        number=1,
        command="/amelia plan",
        stages=("architect",),
        requested_by="alice",
        run_url=None,
    )


async def test_stages_and_events_before_the_comment_is_opened_go_nowhere() -> None:
    github, progress = _github(), RunProgress()
    await progress.stage("architect", "running")
    await progress.sink(
        StreamEvent(type=StreamEventType.STAGE_STARTED, agent="architect", workflow_id="w")
    )
    assert progress.tracker is None
    assert github.state.issue_comments(REPO, 1) == []


async def test_once_opened_the_stages_and_the_pipelines_events_show_on_the_comment() -> None:
    github, progress = _github(), RunProgress()
    await _open(progress, github)
    await progress.sink(
        StreamEvent(
            type=StreamEventType.STAGE_STARTED,
            agent="architect",
            content="exploring",
            workflow_id="w",
        )
    )
    assert progress.tracker is not None
    assert [(s.name, s.status) for s in progress.tracker.report.stages] == [
        ("architect", "running")
    ]
    (comment,) = github.state.issue_comments(REPO, 1)
    assert comment.body.startswith("<!-- amelia:progress issue=1 -->")


async def test_the_comment_is_opened_once() -> None:
    github, progress = _github(), RunProgress()
    await _open(progress, github)
    with pytest.raises(RuntimeError, match="already open"):
        await _open(progress, github)
