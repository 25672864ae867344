"""What an agent leaves running gets nothing: not the token of amelia's push, not the
runner's file commands.

Through the real `amelia action` entry (every input of action.yml, the token, the model
key and the runner's tokens as a runner passes them, and the runner's file commands laid
out as in a container action, each holding what an earlier step wrote), the API driver's
developer starts `leftover_watcher.py` through its shell, and the project's test command
(code the developer wrote) starts another: each detaches (double fork, new session) and
then scans every process's `environ` and `cmdline`, git's on every pass, waiting for
amelia's token-bearing push, and appends code for later steps to `GITHUB_ENV`,
`GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY` and `GITHUB_STATE`, again whenever
its line is gone. The run still implements and pushes; afterwards no watcher runs, no
credential is in what they copied, and every file command holds what the earlier step and
amelia wrote, and nothing of the watchers'. Without amelia stopping leftovers the watchers
outlive the run and their lines stay in the files (checked by hand: every assertion on the
watchers and the files fails).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from amelia.action.checkout._runner_files import RUNNER_FILE_COMMANDS
from amelia.agents.prompts import DEVELOPER_INSTRUCTIONS
from amelia.testing.action_harness import ActionHarness, parse_outputs, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from amelia.testing.openai_server import (
    RecordedRequest,
    ScriptedOpenAIServer,
    ScriptItem,
    tool_call,
)
from amelia.testing.openai_server import text as openai_text
from tests.security.leftover_watcher import LINES
from tests.security.probe_results import found_in
from tests.security.test_action_credential_isolation import (
    FAREWELL,
    ISSUE,
    VERDICT,
    fresh_credentials,
    implement,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

WATCHER = Path(__file__).resolve().with_name("leftover_watcher.py")
EARLIER = {
    "GITHUB_ENV": b"EARLIER_STEP=kept\n",
    "GITHUB_PATH": b"/opt/earlier/bin\n",
    "GITHUB_OUTPUT": b"",
    "GITHUB_STEP_SUMMARY": b"",
    "GITHUB_STATE": b"",
}


def watcher_command(out: Path, files: dict[str, Path]) -> str:
    pairs = [f"{name}={path}" for name, path in files.items()]
    return shlex.join([sys.executable, str(WATCHER), str(out), *pairs])


class _Script:
    """The developer starts a watcher, writes farewell.py and a test script that starts
    another; the reviewer approves."""

    def __init__(self, command: str) -> None:
        self.developer: list[Sequence[ScriptItem]] = [
            [tool_call("run_shell_command", {"command": command})],
            [tool_call("write_file", {"file_path": "farewell.py", "content": FAREWELL})],
            [openai_text("Added farewell.py")],
        ]
        self.asked = {"developer": 0, "reviewer": 0}

    def __call__(self, request: RecordedRequest) -> Sequence[ScriptItem]:
        developer = DEVELOPER_INSTRUCTIONS.splitlines()[0] in json.dumps(request.body)
        role = "developer" if developer else "reviewer"
        self.asked[role] += 1
        if role == "reviewer":
            return [tool_call("final_result", VERDICT)]
        return self.developer[min(self.asked[role] - 1, len(self.developer) - 1)]


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")


def test_what_an_agent_leaves_running_gets_no_token_and_changes_no_file_command(
    tmp_path: Path,
) -> None:
    credentials = fresh_credentials()
    commands_dir = tmp_path / "file_commands"
    commands_dir.mkdir()
    files = {name: commands_dir / f"{name.lower()}_4f0c" for name in RUNNER_FILE_COMMANDS}
    for name, path in files.items():
        path.write_bytes(EARLIER[name])
    agent_out, test_out = tmp_path / "agent-watcher", tmp_path / "test-watcher"
    agent_out.mkdir()
    test_out.mkdir()
    script = _Script(watcher_command(agent_out, files))
    try:
        with (
            ScriptedOpenAIServer(script=script) as model,
            ActionHarness(tmp_path / "action", token=credentials["github_token"]) as harness,
        ):
            run = implement(
                harness,
                credentials,
                inputs={
                    "driver": "api:openai",
                    "model": "openai:gpt-x",
                    "test_command": watcher_command(test_out, files),
                },
                env={
                    "OPENAI_BASE_URL": model.url,
                    **{name: str(path) for name, path in files.items()},
                },
            )
            assert run.exit_code == 0, run.stdout + run.stderr
            assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL
            amelias_variable = f"OPENAI_BASE_URL={model.url}\0".encode()
        watchers = [int((out / "pid").read_text()) for out in (agent_out, test_out)]
        running = [pid for pid in watchers if _running(pid)]
    finally:
        for out in (agent_out, test_out):
            with contextlib.suppress(OSError, ValueError):
                os.kill(int((out / "pid").read_text()), signal.SIGKILL)

    # Both watchers ran, read what they could, and were stopped.
    for out in (agent_out, test_out):
        assert (out / "scans").exists()
        assert amelias_variable in (out / "dump").read_bytes()
    assert running == []
    dumped = (agent_out / "dump").read_bytes() + (test_out / "dump").read_bytes()
    # Raw or base64 at any alignment: the push's header is base64 of `x-access-token:…`.
    assert found_in(dumped, credentials) == set()

    # The test command (the developer's code) starts without the runner's file commands
    # and without any credential or model endpoint of amelia's.
    test_environ = (test_out / "own-environ").read_bytes()
    names = {entry.split(b"=", 1)[0].decode() for entry in test_environ.split(b"\0") if entry}
    assert names.isdisjoint(RUNNER_FILE_COMMANDS)
    assert found_in(test_environ, credentials) == set()

    # The file commands hold the earlier step's lines and amelia's, nothing of theirs.
    for name, path in files.items():
        content = path.read_bytes()
        assert content.startswith(EARLIER[name]), name
        assert LINES[name] not in content, name
    assert files["GITHUB_ENV"].read_bytes() == EARLIER["GITHUB_ENV"]
    assert files["GITHUB_PATH"].read_bytes() == EARLIER["GITHUB_PATH"]
    assert files["GITHUB_STATE"].read_bytes() == b""
    outputs = parse_outputs(files["GITHUB_OUTPUT"].read_text(encoding="utf-8"))
    assert outputs["branch"] == f"amelia/issue-{ISSUE}"
    assert outputs["conclusion"] == "success"
    assert "farewell" in files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")


def test_what_the_claude_developer_leaves_running_is_stopped_too(tmp_path: Path) -> None:
    """The same watcher started through Claude Code's Bash tool: a descendant of the CLI
    that the CLI's exit orphans, adopted and stopped by amelia."""
    credentials = fresh_credentials()
    files = {"GITHUB_ENV": tmp_path / "set_env_4f0c", "GITHUB_PATH": tmp_path / "add_path_4f0c"}
    for name, path in files.items():
        path.write_bytes(EARLIER[name])
    out = tmp_path / "watcher"
    out.mkdir()
    root = tmp_path / "action"
    developer: Sequence[Turn] = [
        [tool_use("Bash", {"command": watcher_command(out, files), "description": "Look"})],
        [
            tool_use(
                "Write", {"file_path": str(root / "workspace" / "farewell.py"), "content": FAREWELL}
            )
        ],
        [text("Added farewell.py")],
    ]
    reviewer: Sequence[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    try:
        with ActionHarness(root, script=script, token=credentials["github_token"]) as harness:
            run = implement(
                harness, credentials, env={name: str(path) for name, path in files.items()}
            )
            assert run.exit_code == 0, run.stdout + run.stderr
            assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL
            amelias_variable = f"GITHUB_API_URL={harness.github.url}\0".encode()
        running = _running(int((out / "pid").read_text()))
    finally:
        with contextlib.suppress(OSError, ValueError):
            os.kill(int((out / "pid").read_text()), signal.SIGKILL)

    assert amelias_variable in (out / "dump").read_bytes()
    assert not running
    assert found_in((out / "dump").read_bytes(), credentials) == set()
    for name, path in files.items():
        assert path.read_bytes() == EARLIER[name], name
