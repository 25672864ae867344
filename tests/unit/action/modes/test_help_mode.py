"""`/amelia help` answers on the issue it was asked on with the list of commands; a command
nobody knows gets the same list as its reply. (The example mode test of
docs/architecture.md.)"""

from __future__ import annotations

import io
from pathlib import Path

from amelia.action.modes.help import MODE
from amelia.github.events import Command
from amelia.testing.modes import TEST_REPO, in_memory_github, mode_context


async def test_help_replies_on_the_issue_with_every_command(tmp_path: Path) -> None:
    github = in_memory_github(issues=["How do I use this?"])
    command = Command(kind="help", number=1, requested_by="alice")

    outcome = await MODE.run(await mode_context(MODE, command, github, tmp_path), None)

    assert outcome.conclusion == "success"
    (reply,) = github.state.issue_comments(TEST_REPO, 1)
    for name in ("plan", "implement", "review", "fix", "help"):
        assert f"/amelia {name}" in reply.body


async def test_an_unknown_command_gets_its_reply_and_no_run(tmp_path: Path) -> None:
    github = in_memory_github(issues=["How do I use this?"])
    command = Command(
        kind="unknown-command", number=1, reply="I do not know `/amelia dance`.", comment_id=5
    )

    outcome = await MODE.run(await mode_context(MODE, command, github, tmp_path), None)

    assert outcome.conclusion == "success"
    (reply,) = github.state.issue_comments(TEST_REPO, 1)
    assert "I do not know `/amelia dance`." in reply.body


async def test_a_dispatched_help_has_no_issue_and_is_a_notice_in_the_log(tmp_path: Path) -> None:
    stdout = io.StringIO()

    outcome = await MODE.run(
        await mode_context(MODE, Command(kind="help"), in_memory_github(), tmp_path, stdout=stdout),
        None,
    )

    assert outcome.conclusion == "success"
    assert stdout.getvalue().startswith("::notice::")
    assert "/amelia implement" in stdout.getvalue()
