"""Claude Code's temporary files (task outputs, probes, its children's TMPDIR) stay in a
private directory of the run, removed afterwards, never in the shared `/tmp/claude-<uid>`."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from amelia.drivers.base import AgenticMessageType
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_server import Turn, text, tool_use
from tests.e2e.drivers.conftest import DriverMaker, collect
from tests.git_helpers import init_repo

pytestmark = pytest.mark.e2e

LOOK = 'stat -c "%u %a %n" "$TMPDIR" "$TMPDIR/claude-$(id -u)" && echo kept > "$TMPDIR/kept.txt"'
"""What the agent runs: the owner, mode and path of its TMPDIR and of the CLI's per-uid
directory in it (where this very command's output goes), leaving a file there."""
SOCKET_DIRECTORY_LIMIT = 44
"""The longest `<CLAUDE_CODE_TMPDIR>/claude-<uid>` the CLI hands its children as TMPDIR."""


def cli_slug(cwd: Path) -> str:
    """The name the CLI gives a working directory under its temporary directory."""
    return re.sub(r"[^A-Za-z0-9]", "-", str(cwd))


def shared_entries(uid: int, slug: str) -> list[str]:
    """What `/tmp/claude-<uid>` (the CLI's default place) holds for the working directory
    of `slug`; other processes of the machine add their own entries there meanwhile."""
    shared = Path(tempfile.gettempdir()) / f"claude-{uid}"
    if not shared.is_dir():
        return []
    return sorted(name for name in os.listdir(shared) if slug in name)


async def test_the_cli_keeps_its_temporary_files_in_a_private_directory_removed_after(
    tmp_path: Path, make_driver: Callable[[ScriptedAnthropicServer], DriverMaker]
) -> None:
    # A working directory whose path no other run uses, so the entries it would get in
    # /tmp/claude-<uid> are this test's alone.
    repo = init_repo(Path(tempfile.mkdtemp(prefix="cli-tmp-", dir=tmp_path)), {"a.md": "a\n"})
    slug = cli_slug(repo)
    uid = os.geteuid()
    assert shared_entries(uid, slug) == []
    script: list[Turn] = [
        [tool_use("Bash", {"command": LOOK, "description": "Look at TMPDIR"}, id="toolu_tmp")],
        [text("looked")],
    ]
    with ScriptedAnthropicServer(script) as server:
        messages = await collect(make_driver(server)(), "look around", repo)

    assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error
    (result,) = [m for m in messages if m.type == AgenticMessageType.TOOL_RESULT]
    assert not result.is_error, result.tool_output
    lines = [line.split(" ", 2) for line in (result.tool_output or "").strip().splitlines()]
    (own_uid, own_mode, own_tmp), (cli_uid, cli_mode, cli_tmp) = lines
    # The CLI's files and its children's TMPDIR: a directory of the CLI's user alone, and
    # the CLI's per-uid directory in it short enough for the CLI to keep using it (longer,
    # it falls back to /tmp/claude-<uid>).
    assert (int(own_uid), own_mode) == (uid, "700")
    assert (int(cli_uid), cli_mode) == (uid, "700")
    assert Path(cli_tmp) == Path(own_tmp) / f"claude-{uid}"
    assert len(os.fsencode(cli_tmp)) <= SOCKET_DIRECTORY_LIMIT
    assert not Path(own_tmp).is_relative_to(repo)
    # Gone with everything in it once the run ended; nothing in the shared place.
    assert not Path(own_tmp).exists()
    assert shared_entries(uid, slug) == []
