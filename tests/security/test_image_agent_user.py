"""Runs as the image runs them: amelia as root, every agent process as the image's own
`amelia-agent` (uid and gid 10001, made by the test setup with the Dockerfile's commands),
through the real entry points (`amelia action`, `amelia run`).

What the real user changes: the checkout must be reachable by it, amelia's own git then
works on a checkout another uid owns, the agents' HOME is not root's, and every process of
that uid on the machine may be another run's.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from amelia.drivers.base import AgenticMessageType
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.runtime import DriverEnvironment
from amelia.isolation.agent_user import AGENT_STOP_REASON, agent_home, resolve_agent_user
from amelia.isolation.leftovers import descendants
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.action_harness import ActionHarness, ActionRun, git, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from tests.image_user import ImageUser

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

AGENT_USER = "amelia-agent"
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "fine",
    "comments": [],
}
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'


def developer_writes_farewell(workspace: Path) -> list[Turn]:
    return [
        [tool_use("Write", {"file_path": str(workspace / "farewell.py"), "content": FAREWELL})],
        [text("Added farewell.py")],
    ]


def error_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("::error")]


@pytest.fixture
def reachable(image_user: ImageUser) -> Iterator[Path]:
    """A directory every uid may enter, as a runner's workspace is (pytest's own temporary
    root is root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="amelia-image-user-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_amelia_run_as_root_plans_in_a_checkout_handed_to_the_agent_user(
    reachable: Path,
) -> None:
    # `amelia run` on someone's machine: no runner, so no system-wide safe.directory and no
    # private git configuration; the user's own git configuration applies.
    with ActionHarness(reachable / "action", agent_user=AGENT_USER) as harness:
        harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")

        result = harness.run_local(
            "issue_comment", harness.comment_event(1, "/amelia plan"), env={"GITHUB_ACTIONS": ""}
        )

        output = result.stdout + result.stderr
        assert result.exit_code == 0, output
        assert "dubious ownership" not in output
        assert "agents run as user amelia-agent, uid 10001, gid 10001" in output
        assert "plan saved to docs/plans/" in output
        plans = git(harness.workspace, "ls-tree", "-r", "--name-only", "amelia/issue-1")
        (plan,) = [name for name in plans.split() if name.startswith("docs/plans/")]
        shown = git(harness.workspace, "show", f"amelia/issue-1:{plan}")
        assert shown.startswith("# Farewell Implementation Plan")
        assert harness.origin_branches() == ["main"]  # a dry run pushes nothing
        assert [r for r in result.github_writes if r.method != "GET"] == []
        # The checkout is the runner's user's again, and nothing was added to git's files.
        assert harness.workspace.stat().st_uid == 0
        listed = git(harness.workspace, "config", "--list", "--show-origin").splitlines()
        assert [line for line in listed if line.startswith("file:") and "safe." in line] == []


@pytest.mark.parametrize("closed", ["a directory above it", "pytest's own temporary root"])
def test_a_checkout_the_agent_user_cannot_reach_stops_the_run_before_anything_happens(
    reachable: Path, tmp_path: Path, closed: str
) -> None:
    if closed == "a directory above it":
        above = reachable / "closed"
        above.mkdir(mode=0o700)  # like /root, or a clone made in `mktemp -d`
        root = above / "action"
    else:
        root = tmp_path / "action"
        above = next(d for d in reversed(tmp_path.parents) if not d.stat().st_mode & 0o001)
    script = plan_script(
        roles={
            "developer": developer_writes_farewell(root / "workspace"),
            "reviewer": [[tool_use("StructuredOutput", APPROVED)], [text("ok")]],
        }
    )
    with ActionHarness(root, script=script, agent_user=AGENT_USER) as harness:
        number = harness.add_planned_issue("Add a farewell", "Say goodbye too.")
        before = harness.origin_git("rev-parse", f"amelia/issue-{number}")
        setup_ran = reachable / f"setup-ran-{closed.split()[0]}"

        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"setup_script": f"touch {setup_ran}"},
        )

        output = result.stdout + result.stderr
        assert result.exit_code == 2, output  # a configuration error, like a missing checkout
        assert result.model_requests == []
        (error,) = error_lines(result.stdout)
        assert error.startswith("::error::the agent user amelia-agent (uid 10001) cannot enter")
        assert f"the agent user amelia-agent (uid 10001) cannot enter {above} (mode 0700" in error
        assert f"chmod o+x {above}" in error and "AMELIA_AGENT_USER=none" in error
        assert str(harness.workspace) in error
        # Checked before anything else: no comment (no progress comment to say "Failed"),
        # no setup, the checkout still on the branch it was on, nothing pushed.
        assert result.github_writes == []
        assert not setup_ran.exists()
        assert git(harness.workspace, "branch", "--show-current").strip() == "main"
        assert harness.origin_git("rev-parse", f"amelia/issue-{number}") == before
        assert not (harness.workspace / "farewell.py").exists()
        assert harness.workspace.stat().st_uid == 0  # never handed over


def test_amelia_run_with_a_checkout_the_agent_user_cannot_reach_writes_nothing(
    reachable: Path,
) -> None:
    above = reachable / "closed"
    above.mkdir(mode=0o700)  # a clone under /root
    with ActionHarness(above / "action", agent_user=AGENT_USER) as harness:
        harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")

        result = harness.run_local(
            "issue_comment",
            harness.comment_event(1, "/amelia plan"),
            dry_run=False,
            env={"GITHUB_ACTIONS": ""},
        )

        output = result.stdout + result.stderr
        assert result.exit_code == 2, output
        (error,) = error_lines(result.stdout)
        assert f"cannot enter {above} (mode 0700" in error and "amelia failed" not in error
        assert result.github_writes == [] and result.model_requests == []
        assert "would create comment" not in output


def test_two_runs_on_one_machine_leave_each_others_agents_alone(reachable: Path) -> None:
    """Run A's developer works (its Claude Code and a command of its Bash) while run B, on
    the same machine and with the same agent user, plans and ends: B's clean-up stops B's
    processes, and A's developer finishes its work."""
    signals = reachable / "signals"
    signals.mkdir()
    os.chown(signals, 10001, 10001)
    working, release = signals / "a-is-working", signals / "b-is-done"
    wait = (
        f"touch {working}; i=0; "
        f"while [ ! -e {release} ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done; "
        f"test -e {release} && echo released"
    )
    root_a = reachable / "a"
    developer: list[Turn] = [
        [tool_use("Bash", {"command": wait, "description": "Wait for run B"})],
        *developer_writes_farewell(root_a / "workspace"),
    ]
    script_a = plan_script(
        roles={
            "developer": developer,
            "reviewer": [[tool_use("StructuredOutput", APPROVED)], [text("ok")]],
        }
    )
    runs_of_b: list[ActionRun] = []
    with (
        ActionHarness(root_a, script=script_a, agent_user=AGENT_USER) as a,
        ActionHarness(reachable / "b", agent_user=AGENT_USER) as b,
    ):
        number = a.add_planned_issue("Add a farewell", "Say goodbye too.")
        b.add_issue("Add a farewell", "Say goodbye too.")

        def run_b_meanwhile(process: subprocess.Popen[str]) -> None:
            while not working.exists() and process.poll() is None:
                time.sleep(0.1)
            try:
                runs_of_b.append(b.run("issue_comment", b.comment_event(1, "/amelia plan")))
            finally:
                release.touch()

        result = a.run(
            "issue_comment",
            a.comment_event(number, "/amelia implement"),
            while_running=run_b_meanwhile,
        )

        output = result.stdout + result.stderr
        (run_b,) = runs_of_b
        assert run_b.exit_code == 0, run_b.stdout + run_b.stderr
        assert b.origin_branches() == ["amelia/issue-1", "main"]
        assert result.exit_code == 0, output
        assert "killed by" not in output and "code -9" not in output
        assert a.origin_file(f"amelia/issue-{number}", "farewell.py") == FAREWELL
        # A's developer saw its command end on its own, not killed by B's clean-up.
        bash_results = [
            block
            for request in result.model_requests
            for message in (request.body or {}).get("messages", [])
            if isinstance(message.get("content"), list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
        assert "released" in json.dumps(bash_results)


def _end_the_shells_left_running(uid: int, marker: Path) -> None:
    """A CLI killed outside amelia leaves its Bash tool's shell running (`sleep 120`, in a
    process group of its own, adopted by init): end each such group of `uid` whose command
    line names `marker`, so that the test leaves no process behind."""
    ours = os.getpgid(0)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (
                entry.stat().st_uid != uid
                or str(marker).encode() not in (entry / "cmdline").read_bytes()
            ):
                continue
            pid = int(entry.name)
            if os.getpgid(pid) == pid != ours:
                os.killpg(pid, signal.SIGKILL)
        except OSError:
            continue


@pytest.mark.parametrize("sender", ["amelia", "another process"])
async def test_a_claude_code_killed_by_a_signal_is_named_with_who_sent_it(
    reachable: Path, sender: str
) -> None:
    checkout = reachable / "checkout"
    checkout.mkdir()
    config = reachable / "claude-config"
    config.mkdir()
    agent = resolve_agent_user(AGENT_USER, euid=0)
    assert agent is not None and agent.uid == 10001
    marker = checkout / "working"
    script: list[Turn] = [
        [tool_use("Bash", {"command": f"touch {marker}; sleep 120"})],
        [text("not reached")],
    ]
    killed: list[int] = []

    def kill_the_cli_once_it_works() -> None:
        while not marker.exists():
            time.sleep(0.05)
        if sender == "amelia":
            killed.append(agent.stop_processes())
            return
        (cli,) = [
            pid
            for pid, _ in descendants(uid=agent.uid)
            if os.readlink(f"/proc/{pid}/exe").endswith("/claude")
        ]
        os.kill(cli, signal.SIGKILL)
        killed.append(cli)

    with ScriptedAnthropicServer(script) as server, agent_home(agent, parent=reachable) as user:
        for path in (checkout, config):
            user.own(path)
        environment = DriverEnvironment(
            inherited={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"},
            credentials={"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": "sk-ant-x"},
            home=reachable / "amelia-home",
            cli_config_dir=config,
            agent=user,
        )
        driver = ClaudeCliDriver(environment=environment, env={"CLAUDE_CODE_MAX_RETRIES": "0"})
        killer = threading.Thread(target=kill_the_cli_once_it_works, daemon=True)
        killer.start()
        try:
            messages = [m async for m in driver.execute_agentic(prompt="go", cwd=str(checkout))]
            killer.join(30)
        finally:
            _end_the_shells_left_running(agent.uid, marker)

    result = messages[-1]
    assert result.type == AgenticMessageType.RESULT and result.is_error
    assert killed
    content = result.content or ""
    assert content.startswith("Claude Code was killed by SIGKILL (signal 9), "), content
    if sender == "amelia":
        assert f", sent by amelia: {AGENT_STOP_REASON}" in content
    else:
        assert "which amelia did not send: another process or the system" in content
        assert "out-of-memory killer" in content
    assert "exited with code" not in content


SETUP = (
    'mkdir -p "$HOME/tools" && touch "$HOME/tools/setup-ran"'
    ' && mkdir -p "$HOME/bin"'
    " && printf '#!/bin/sh\\necho tool-from-setup\\n' > \"$HOME/bin/setup-tool\""
    ' && chmod +x "$HOME/bin/setup-tool"'
    ' && echo "$HOME/bin" >> "$GITHUB_PATH"'
)
"""Installs into $HOME, as rustup, nvm, uv or pip --user do, and adds to PATH the way a
workflow step does."""
TESTS = (
    'test -f "$HOME/tools/setup-ran" && setup-tool'
    ' && touch "$HOME/tools/written-by-the-tests" && echo "tests home $HOME"'
)


@pytest.mark.parametrize("relied_on", ["the test command's python3", "a directory the setup added"])
def test_a_toolchain_on_a_path_the_agent_user_cannot_reach_stops_before_any_model_request(
    reachable: Path, relied_on: str
) -> None:
    # Like pyenv under /root/.pyenv on root's PATH: the setup (root) installs into it, the
    # agent user's tests would run /usr/bin/python3 without what was installed.
    closed = reachable / "root"
    shims = closed / ".pyenv" / "shims"
    shims.mkdir(parents=True)
    closed.chmod(0o700)
    shim = shims / "python3"
    shim.write_text(
        f'#!/bin/sh\nPYTHONPATH={closed / "site"} exec /usr/bin/python3 "$@"\n', encoding="utf-8"
    )
    shim.chmod(0o755)
    if relied_on == "a directory the setup added":
        setup = f'mkdir -p {closed}/bin && echo {closed}/bin >> "$GITHUB_PATH"'
        tests = "true"
    else:
        setup = f"mkdir -p {closed}/site && python3 -c 'print(1)' > {closed}/site/tomli_w.py"
        tests = 'python3 -c "import tomli_w"'
    with ActionHarness(reachable / "action", agent_user=AGENT_USER) as harness:
        number = harness.add_planned_issue("Add a farewell", "Say goodbye too.")
        path = harness.environment("x", Path("x"), Path("x"), Path("x"))["PATH"]

        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"setup_script": setup, "test_command": tests},
            env={"PATH": f"{shims}:{path}"},
        )

        output = result.stdout + result.stderr
        assert result.exit_code == 1, output
        assert result.model_requests == []
        assert result.outputs["conclusion"] == "failure"
        (error,) = error_lines(result.stdout)
        assert "the agent user amelia-agent, who runs the tests" in error
        assert "AMELIA_AGENT_USER=none" in error and "no agent ran" in error
        if relied_on == "a directory the setup added":
            assert f"the PATH entries the setup added ({closed}/bin)" in error
        else:
            assert f"`python3` of test_command ({shim}; it would run " in error
        assert "Setup `mkdir -p" in result.summary and ": passed" in result.summary
        assert not [r for r in result.github_writes if r.path.endswith("/pulls")]


def test_the_setup_the_test_command_and_the_agents_share_one_home_and_path(
    reachable: Path,
) -> None:
    """Also the counterpart of the tests of a checkout the agent user cannot reach: one it
    can reach passes the check, and the agent's work is pushed and its pull opened."""
    root = reachable / "action"
    look = 'echo "agent home $HOME"; setup-tool; ls "$HOME/tools"; id -u'
    developer: list[Turn] = [
        [tool_use("Bash", {"command": look, "description": "Look at the toolchain"})],
        *developer_writes_farewell(root / "workspace"),
    ]
    script = plan_script(
        roles={
            "developer": developer,
            "reviewer": [[tool_use("StructuredOutput", APPROVED)], [text("ok")]],
        }
    )
    with ActionHarness(root, script=script, agent_user=AGENT_USER) as harness:
        number = harness.add_planned_issue("Add a farewell", "Say goodbye too.")

        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            inputs={"setup_script": SETUP, "test_command": TESTS},
        )

        output = result.stdout + result.stderr
        assert result.exit_code == 0, output
        assert harness.origin_file(f"amelia/issue-{number}", "farewell.py") == FAREWELL
        assert [r for r in result.github_writes if r.path.endswith("/pulls")]
        assert "Setup `mkdir -p" in result.summary and ": passed" in result.summary
        assert f"**Tests:** `{TESTS}` — passed" in result.summary
        assert result.outputs["verdict"] == "approved"
        # The developer's Bash (Claude Code as uid 10001) found the setup's tool on its PATH
        # and its files in its HOME, the same HOME the test command wrote into.
        seen = json.dumps([r.body for r in result.model_requests])
        assert "tool-from-setup" in seen and "setup-ran" in seen and "10001" in seen
        homes = re.findall(r"agent home (/[^\\s\"]+)", seen)
        assert homes and "/amelia-agent-home-" in homes[0]
        assert f"tests home {homes[0]}" in seen  # the test output the reviewer read
