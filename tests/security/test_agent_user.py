"""Through the real `amelia action` entry as root, every agent process runs as the
unprivileged agent user, and the checkout is handed to it and back.

As in the Action's container: amelia runs as root, a socket made like the runner's
`/var/run/docker.sock` (root and another group, mode 0660) exists, the checkout belongs
to the runner's uid (1001) and one file to yet another. `AMELIA_AGENT_USER` names an uid
and gid no other process uses (the machine has no `amelia-agent`, and tests create no
users). The developer (the real Claude Code CLI, or the API driver's shell) runs
`agent_user_probe.py`, which reports its own `/proc/self/status` and the errno of every
route it tries, then leaves a detached daemon reading every `/proc/<pid>/environ` it can.
The test command reports who ran it. A `pre-receive` hook of origin records whether the
daemon still lived when amelia's token-bearing push arrived.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import random
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from amelia.agents.prompts import DEVELOPER_INSTRUCTIONS
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import Turn, api_error, text, tool_use
from amelia.testing.openai_server import RecordedRequest as OpenAIRequest
from amelia.testing.openai_server import ScriptedOpenAIServer, ScriptItem, tool_call
from amelia.testing.openai_server import text as openai_text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.timeout(300),
    pytest.mark.skipif(os.geteuid() != 0, reason="only root can switch agents to another user"),
]

PROBE = Path(__file__).resolve().with_name("agent_user_probe.py")
PYTHON = "/usr/bin/python3"
"""The system's python: the agent user cannot run the test environment's (under /root)."""
RUNNER = (1001, 1001)
OTHER = (1234, 1234)
SOCKET_GROUP = 4242
APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "fine",
    "comments": [],
}
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
PLAN_PATH = "docs/plans/2026-01-01-issue-1-add-a-farewell.md"


@dataclass(frozen=True)
class Stage:
    """What a test sets up around the harness: a directory every uid can reach, the agent's
    uid and gid, the socket, another uid's file, the agent's output directory."""

    base: Path
    uid: int
    gid: int
    socket: Path
    foreign: Path
    out: Path

    @property
    def agent_user(self) -> str:
        return f"{self.uid}:{self.gid}"

    @property
    def script(self) -> Path:
        """The probe, copied where the agent user can read it (the repository may sit in
        a directory only root can enter, as a clone in `mktemp -d` does)."""
        return self.base / PROBE.name

    def probe(self, name: str = "developer") -> str:
        arguments = ["--socket", str(self.socket), "--foreign", str(self.foreign)]
        return shlex.join([PYTHON, str(self.script), str(self.out), "report", name, *arguments])

    def test_command(self) -> str:
        return shlex.join([PYTHON, str(self.script), str(self.out), "status", "tests"])

    def result(self, name: str) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.out / f"{name}.json").read_text())
        return loaded


def _unused_id() -> int:
    while True:
        candidate = random.randint(40_000, 59_999)
        try:
            pwd.getpwuid(candidate)
            continue
        except KeyError:
            pass
        try:
            grp.getgrgid(candidate)
            continue
        except KeyError:
            return candidate


@pytest.fixture
def stage() -> Iterator[Stage]:
    base = Path(tempfile.mkdtemp(prefix="amelia-agent-user-"))
    base.chmod(0o755)
    uid = _unused_id()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    docker = base / "docker.sock"
    listener.bind(str(docker))
    listener.listen(1)
    os.chown(docker, 0, SOCKET_GROUP)
    docker.chmod(0o660)
    foreign = base / "github_env"
    foreign.write_text("")
    os.chown(foreign, *RUNNER)
    foreign.chmod(0o644)
    out = base / "out"
    out.mkdir()
    os.chown(out, uid, uid)
    shutil.copy(PROBE, base / PROBE.name)
    try:
        yield Stage(base=base, uid=uid, gid=uid, socket=docker, foreign=foreign, out=out)
    finally:
        listener.close()
        shutil.rmtree(base, ignore_errors=True)


def _owners(workspace: Path) -> dict[str, tuple[int, int]]:
    """Every path of the checkout but `.git`'s (amelia's own git writes there as root),
    with its owner."""
    found = {}
    for path in [workspace, *workspace.rglob("*")]:
        if path.relative_to(workspace).parts[:1] == (".git",):
            continue
        status = path.lstat()
        found[str(path.relative_to(workspace))] = (status.st_uid, status.st_gid)
    return found


def _prepare(harness: ActionHarness, stage: Stage) -> dict[str, tuple[int, int]]:
    """The issue with its plan on origin; the checkout as the runner's (one file another
    uid's); origin's hook recording whether the daemon lives at amelia's push. Returns
    every path's owner."""
    harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    harness.push_branch("amelia/issue-1", {PLAN_PATH: DEFAULT_PLAN})
    harness.chown_workspace(*RUNNER)
    os.chown(harness.workspace / "README.md", *OTHER)
    hook = harness.origin / "hooks" / "pre-receive"
    pid_file, record = stage.out / "daemon.pid", stage.base / "at-push"
    hook.write_text(
        "#!/bin/sh\ncat >/dev/null\n"
        f"pid=$(cat {pid_file} 2>/dev/null) || {{ echo no-daemon >> {record}; exit 0; }}\n"
        f'if [ -d /proc/$pid ] && ! grep -q "^State:.*Z" /proc/$pid/status; '
        f"then echo alive >> {record}; else echo gone >> {record}; fi\n"
    )
    hook.chmod(0o755)
    return _owners(harness.workspace)


def _implement(
    harness: ActionHarness,
    stage: Stage,
    *,
    inputs: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    while_running: Any = None,
) -> ActionRun:
    return harness.run(
        "issue_comment",
        harness.comment_event(1, "/amelia implement"),
        inputs={"test_command": stage.test_command(), **(inputs or {})},
        env=env,
        while_running=while_running,
    )


def assert_runs_as_the_agent_user(found: dict[str, Any], stage: Stage) -> None:
    status = found["status"]
    assert status["Uid"] == [str(stage.uid)] * 4
    assert status["Gid"] == [str(stage.gid)] * 4
    assert status["Groups"] == []
    assert status["NoNewPrivs"] == ["1"]


def assert_the_probe_reached_nothing(found: dict[str, Any], stage: Stage) -> None:
    assert_runs_as_the_agent_user(found, stage)
    assert found["docker_socket"] == "EACCES"
    assert found["amelia_environ"] in ("EACCES", "EPERM")
    assert found["amelia_mem"] in ("EACCES", "EPERM")
    assert found["git_hook"] == "EACCES"
    assert found["git_config"] == "EACCES"
    assert found["foreign_file"] == "EACCES"
    # What the agent needs still works: git reads the checkout, it writes files and HOME.
    assert found["git_status"] == 0
    assert found["checkout_write"] == "ok"
    assert found["home_owner"] == stage.uid and found["home_write"] == "ok"
    assert not Path(found["home"]).exists()  # removed after the mode


def assert_given_back(
    harness: ActionHarness, before: dict[str, tuple[int, int]], new: Sequence[str]
) -> None:
    """Every path has its owner again, every new one the checkout root's."""
    after = _owners(harness.workspace)
    changed = {
        path: (before[path], owner)
        for path, owner in after.items()
        if path in before and owner != before[path]
    }
    assert changed == {}
    assert before["README.md"] == OTHER
    for path in new:
        assert after[path] == RUNNER, path
    assert {path: owner for path, owner in after.items() if path not in before} == {
        path: RUNNER for path in after if path not in before
    }
    # What amelia's own git made in .git as root (objects, refs, HEAD, index) is the
    # runner's again too, so a later step or the next job's checkout can change it.
    git = harness.workspace / ".git"
    assert {(p.lstat().st_uid, p.lstat().st_gid) for p in [git, *git.rglob("*")]} == {RUNNER}


def assert_the_daemon_was_gone_before_the_push(stage: Stage, secrets: Sequence[str]) -> None:
    pid = int((stage.out / "daemon.pid").read_text())
    assert (stage.base / "at-push").read_text().split() == ["gone"]
    status = Path(f"/proc/{pid}/status")
    assert not status.exists() or "\nState:\tZ" in status.read_text()
    found = stage.out / "daemon-found.txt"
    seen = found.read_bytes() if found.exists() else b""
    for secret in secrets:
        assert secret.encode() not in seen


def test_the_claude_developer_and_the_test_command_run_as_the_agent_user(stage: Stage) -> None:
    root = stage.base / "action"
    developer: list[Turn] = [
        [tool_use("Bash", {"command": stage.probe(), "description": "Look around"})],
        [
            tool_use(
                "Write", {"file_path": str(root / "workspace/farewell.py"), "content": FAREWELL}
            )
        ],
        [text("Added farewell.py")],
    ]
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    with ActionHarness(root, script=script, agent_user=stage.agent_user) as harness:
        before = _prepare(harness, stage)

        result = _implement(harness, stage)

        assert result.exit_code == 0, result.stdout + result.stderr
        assert harness.origin_file("amelia/issue-1", "farewell.py") == FAREWELL
        assert harness.origin_file("amelia/issue-1", "agent-made.txt") == "made by the agent\n"
        assert_the_probe_reached_nothing(stage.result("developer"), stage)
        assert_runs_as_the_agent_user(stage.result("tests"), stage)
        assert_the_daemon_was_gone_before_the_push(stage, [harness.token])
        assert_given_back(harness, before, ["farewell.py", "agent-made.txt"])
        assert f"uid {stage.uid}, gid {stage.gid}" in result.stderr + result.stdout


class _OpenAIScript:
    """The developer probes through its shell, writes a file with the file tool, then
    reports the file's owner through its shell; the reviewer approves."""

    def __init__(self, stage: Stage) -> None:
        owner = shlex.join(["stat", "-c", "%u:%g", "farewell.py"])
        self.developer: list[Sequence[ScriptItem]] = [
            [tool_call("run_shell_command", {"command": stage.probe()})],
            [
                tool_call(
                    "write_file", {"file_path": "greeter/bye/farewell.py", "content": FAREWELL}
                )
            ],
            [tool_call("run_shell_command", {"command": f"cd greeter/bye && {owner}"})],
            [openai_text("Added farewell.py")],
        ]
        self.reviewer: list[Sequence[ScriptItem]] = [[tool_call("final_result", APPROVED)]]
        self.asked = {"developer": 0, "reviewer": 0}
        self.seen: list[str] = []

    def __call__(self, request: OpenAIRequest) -> Sequence[ScriptItem]:
        body = json.dumps(request.body)
        role = "developer" if DEVELOPER_INSTRUCTIONS.splitlines()[0] in body else "reviewer"
        self.seen.append(body)
        turns = self.developer if role == "developer" else self.reviewer
        self.asked[role] += 1
        return turns[min(self.asked[role] - 1, len(turns) - 1)]


def test_the_api_developers_shell_and_file_tools_act_as_the_agent_user(stage: Stage) -> None:
    script = _OpenAIScript(stage)
    with (
        ScriptedOpenAIServer(script=script) as model,
        ActionHarness(stage.base / "action", agent_user=stage.agent_user) as harness,
    ):
        before = _prepare(harness, stage)

        result = _implement(
            harness,
            stage,
            inputs={"driver": "api:openai", "model": "openai:gpt-x", "openai_api_key": "sk-k"},
            env={"OPENAI_BASE_URL": model.url},
        )

        assert result.exit_code == 0, result.stdout + result.stderr
        bye = "greeter/bye/farewell.py"
        assert harness.origin_file("amelia/issue-1", bye) == FAREWELL
        assert_the_probe_reached_nothing(stage.result("developer"), stage)
        assert_runs_as_the_agent_user(stage.result("tests"), stage)
        # The file tool (in amelia's root process) made the file and its folder the agent's.
        assert f"{stage.uid}:{stage.gid}" in "".join(script.seen)
        assert_the_daemon_was_gone_before_the_push(stage, [harness.token])
        assert_given_back(harness, before, [bye, "greeter/bye", "agent-made.txt"])


@pytest.mark.parametrize("ending", ["failure", "sigterm"])
def test_the_checkout_is_given_back_after_a_failure_or_a_cancellation(
    stage: Stage, ending: str
) -> None:
    root = stage.base / "action"
    marker = stage.out / "agent-is-running"
    developer: list[Turn] = [
        [tool_use("Bash", {"command": stage.probe()})],
        [tool_use("Write", {"file_path": str(root / "workspace/bye.py"), "content": "B = 1\n"})],
    ]
    if ending == "sigterm":
        developer.append([tool_use("Bash", {"command": f"touch {marker}; sleep 60"})])
    developer.append(api_error(400, "the scripted model gives up"))
    script = plan_script(roles={"developer": developer})

    def cancel(process: subprocess.Popen[str]) -> None:
        while not marker.exists() and process.poll() is None:
            time.sleep(0.1)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)

    with ActionHarness(root, script=script, agent_user=stage.agent_user) as harness:
        before = _prepare(harness, stage)

        result = _implement(harness, stage, while_running=cancel if ending == "sigterm" else None)

        assert result.exit_code == 1, result.stdout + result.stderr
        if ending == "sigterm":
            assert "SIGTERM" in result.stdout + result.stderr
        assert_runs_as_the_agent_user(stage.result("developer"), stage)
        assert_given_back(harness, before, ["bye.py", "agent-made.txt"])
        # Nothing of the agent user outlives the run: not the sleep, not the daemon.
        pid = int((stage.out / "daemon.pid").read_text())
        status = Path(f"/proc/{pid}/status")
        assert not status.exists() or "\nState:\tZ" in status.read_text()


def test_root_without_the_agent_user_stops_before_any_model_request(tmp_path: Path) -> None:
    with ActionHarness(tmp_path / "action", agent_user="amelia-agent-absent") as harness:
        harness.add_issue("Add a farewell", "Say goodbye.")

        result = harness.run("issue_comment", harness.comment_event(1, "/amelia plan"))

    assert result.exit_code == 1
    assert result.model_requests == []
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert "amelia-agent-absent does not exist" in errors[0]
    assert "AMELIA_AGENT_USER=none" in errors[0]
