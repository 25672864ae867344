"""`/amelia help` answers on the issue it was asked on with the list of commands; a command
nobody knows gets the same list as its reply. (The example mode test of
docs/architecture.md.)"""

from __future__ import annotations

import io
import json
from pathlib import Path

from amelia.action.checkout import Checkout
from amelia.action.modes import ModeContext
from amelia.action.modes.help import MODE
from amelia.action.progress import RunProgress
from amelia.action.run_settings import resolve_run_settings, run_target
from amelia.action.workflow_io import WorkflowIO
from amelia.config import load_settings
from amelia.github.events import Command, parse_event
from amelia.pipeline import default_make_driver
from amelia.redaction import Redactor
from amelia.testing.action_inputs import runner_inputs
from amelia.testing.github import GitHubState, InMemoryGitHub

REPO = "octo/app"


async def _help_context(command: Command, github: InMemoryGitHub, path: Path) -> ModeContext:
    """What the engine would build for `command`, on the in-memory GitHub."""
    settings = load_settings(environ={**runner_inputs("ghs_t"), "GITHUB_REPOSITORY": REPO})
    event = parse_event("issues", json.dumps({"action": "opened", "issue": {"number": 1}}))
    resolved = await resolve_run_settings(
        settings,
        run_target(settings, event, workspace=path),
        command,
        event,
        github=github,
        redactor=Redactor(),
        read_repository=MODE.needs_workspace,
    )
    return ModeContext(
        command=command,
        event=event,
        settings=resolved,
        github=github,
        checkout=Checkout(path, on_runner=False),
        io=WorkflowIO(stream=io.StringIO()),
        redactor=Redactor(),
        progress=RunProgress(),
        make_driver=default_make_driver(resolved.profile),
    )


def _github() -> InMemoryGitHub:
    state = GitHubState()
    state.add_repo(REPO)
    state.add_issue(REPO, "How do I use this?")
    return InMemoryGitHub(state, REPO)


async def test_help_replies_on_the_issue_with_every_command(tmp_path: Path) -> None:
    github = _github()
    command = Command(kind="help", number=1, requested_by="alice")

    outcome = await MODE.run(await _help_context(command, github, tmp_path), None)

    assert outcome.conclusion == "success"
    (reply,) = github.state.issue_comments(REPO, 1)
    for name in ("plan", "implement", "review", "fix", "help"):
        assert f"/amelia {name}" in reply.body


async def test_an_unknown_command_gets_its_reply_and_no_run(tmp_path: Path) -> None:
    github = _github()
    command = Command(
        kind="unknown-command", number=1, reply="I do not know `/amelia dance`.", comment_id=5
    )

    outcome = await MODE.run(await _help_context(command, github, tmp_path), None)

    assert outcome.conclusion == "success"
    (reply,) = github.state.issue_comments(REPO, 1)
    assert "I do not know `/amelia dance`." in reply.body
