"""A mode's context as the engine builds it, for in-process mode tests (docs/architecture.md,
"Testing a mode"): the run's settings resolved from the inputs a runner passes, the
in-memory GitHub, a checkout of a local directory, the workflow commands written to a
string, a fresh progress comment and the drivers of the run's profile.

    github = in_memory_github(issues=["How do I use this?"])
    ctx = await mode_context(MODE, Command(kind="help", number=1), github, tmp_path)
    outcome = await MODE.run(ctx, None)
    (reply,) = github.state.issue_comments(TEST_REPO, 1)
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from amelia.action.checkout import Checkout
from amelia.action.modes import Mode, ModeContext
from amelia.action.progress import RunProgress
from amelia.action.run_settings import resolve_run_settings, run_target
from amelia.action.workflow_io import WorkflowIO
from amelia.config import load_settings
from amelia.github.events import Command, Event, parse_event
from amelia.pipeline import default_make_driver
from amelia.pipeline.drivers import DriverSource
from amelia.redaction import Redactor
from amelia.testing.action_inputs import runner_inputs
from amelia.testing.github import GitHubState, InMemoryGitHub

__all__ = ["TEST_REPO", "in_memory_github", "mode_context"]

TEST_REPO = "octo/app"
"""The repository `in_memory_github` and `mode_context` use unless told another."""


def in_memory_github(*, repo: str = TEST_REPO, issues: Iterable[str] = ()) -> InMemoryGitHub:
    """The in-memory GitHub with `repo` and one issue per title of `issues` (#1, #2, …)."""
    state = GitHubState()
    state.add_repo(repo)
    for title in issues:
        state.add_issue(repo, title)
    return InMemoryGitHub(state, repo)


async def mode_context(
    mode: Mode[Any],
    command: Command,
    github: InMemoryGitHub,
    workspace: Path,
    *,
    repo: str = TEST_REPO,
    event: Event | None = None,
    inputs: Mapping[str, str] | None = None,
    drivers: DriverSource | None = None,
    stdout: io.StringIO | None = None,
) -> ModeContext:
    """What the engine builds for `command` before it calls `mode`: the settings from every
    input of action.yml with its default (`inputs` overrides some, by their `INPUT_*`
    names), resolved as the engine resolves them (with `.github/amelia.yml` read from
    `github` when the mode needs the workspace); `event` (None: the issue of `command`
    opened); the checkout `workspace`; the agents' drivers from `drivers` (None: the real
    ones of the run's profile); the workflow commands written to `stdout`; the progress
    comment's sink among the agents' sinks, as the engine puts it."""
    environ = {**runner_inputs("ghs_t"), "GITHUB_REPOSITORY": repo, **(inputs or {})}
    settings = load_settings(environ=environ)
    if event is None:
        opened = {"action": "opened", "issue": {"number": command.number or 1}}
        event = parse_event("issues", json.dumps(opened))
    redactor = Redactor()
    resolved = await resolve_run_settings(
        settings,
        run_target(settings, event, workspace=workspace),
        command,
        event,
        github=github,
        redactor=redactor,
        read_repository=mode.needs_workspace,
    )
    progress = RunProgress()
    return ModeContext(
        command=command,
        event=event,
        settings=resolved,
        github=github,
        checkout=Checkout(workspace, on_runner=False),
        io=WorkflowIO(stream=stdout if stdout is not None else io.StringIO()),
        redactor=redactor,
        progress=progress,
        make_driver=(drivers or default_make_driver)(resolved.profile),
        sinks=(progress.sink,),
        driver_source=drivers,
    )
