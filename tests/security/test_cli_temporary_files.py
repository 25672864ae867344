"""Through the real `amelia action` entry, every Claude Code process of the run keeps its
temporary files in a directory of its own user, mode 0700, removed afterwards: nothing of
the run is left in the shared `/tmp/claude-<uid>`, where a later run's agent of the same
user could read it.

As root with the image's agent user (every run's agents share uid 10001, as on a
self-hosted runner), and as amelia's own user (`AMELIA_AGENT_USER=none`, or not root).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from tests.image_user import ImageUser

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "fine",
    "comments": [],
}
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
LOOK = 'stat -c "%u %a %n" "$TMPDIR" "$TMPDIR/claude-$(id -u)" && echo kept > "$TMPDIR/kept.txt"'
"""The owner, mode and path of the agent's TMPDIR and of the CLI's per-uid directory in
it (where this command's own output goes), leaving a file there."""
SOCKET_DIRECTORY_LIMIT = 44
"""The longest `<CLAUDE_CODE_TMPDIR>/claude-<uid>` the CLI hands its children as TMPDIR."""
STAT_LINES = re.compile(r"(\d+) (\d+) (/\S+)\n(\d+) (\d+) (/\S+)")


def cli_slug(cwd: Path) -> str:
    """The name the CLI gives a working directory under its temporary directory."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def shared_entries(uid: int, slug: str) -> list[str]:
    """What `/tmp/claude-<uid>` holds for the working directory of `slug`; other runs of
    the machine add their own entries there meanwhile."""
    shared = Path("/tmp") / f"claude-{uid}"
    if not shared.is_dir():
        return []
    return sorted(name for name in os.listdir(shared) if slug in name)


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A directory every uid may enter, with a name no other run uses."""
    base = Path(tempfile.mkdtemp(prefix="amelia-cli-tmp-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["amelia-agent", "none"])
def agent(request: pytest.FixtureRequest) -> tuple[str, int]:
    """`AMELIA_AGENT_USER` and the uid the agents run as: the image's agent user (root
    only), or amelia's own."""
    if request.param == "none":
        return "none", os.geteuid()
    user: ImageUser = request.getfixturevalue("image_user")
    return user.name, user.uid


def _bash_outputs(requests: list[Any]) -> list[str]:
    found = []
    for request in requests:
        for message in (request.body or {}).get("messages", []):
            if not isinstance(message.get("content"), list):
                continue
            for block in message["content"]:
                if block.get("type") == "tool_result":
                    content = block.get("content")
                    found.append(content if isinstance(content, str) else json.dumps(content))
    return found


def test_no_agent_leaves_temporary_files_in_the_shared_place(
    reachable: Path, agent: tuple[str, int]
) -> None:
    agent_user, uid = agent
    root = reachable / "action"
    look: Turn = [tool_use("Bash", {"command": LOOK, "description": "Look at TMPDIR"})]
    farewell = {"file_path": str(root / "workspace/farewell.py"), "content": FAREWELL}
    developer: list[Turn] = [
        look,
        [tool_use("Write", farewell)],
        [text("Added farewell.py")],
    ]
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    with ActionHarness(root, script=script, agent_user=agent_user) as harness:
        slug = cli_slug(harness.workspace)
        assert shared_entries(uid, slug) == []
        number = harness.add_planned_issue("Add a farewell", "Say goodbye too.")

        result = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))

        assert result.exit_code == 0, result.stdout + result.stderr
        assert harness.origin_file(f"amelia/issue-{number}", "farewell.py") == FAREWELL
        seen = [STAT_LINES.search(output) for output in _bash_outputs(result.model_requests)]
        # The developer's look (each later request of its session repeats it).
        looked = {found.groups() for found in seen if found is not None}
        assert len(looked) == 1, looked
        for own_uid, own_mode, own, cli_uid, cli_mode, cli in looked:
            assert (int(own_uid), own_mode) == (uid, "700")
            assert (int(cli_uid), cli_mode) == (uid, "700")
            assert Path(cli) == Path(own) / f"claude-{uid}"
            assert len(os.fsencode(cli)) <= SOCKET_DIRECTORY_LIMIT
            assert not Path(own).exists()
            assert not Path(own).parent.exists()
        assert shared_entries(uid, slug) == []
