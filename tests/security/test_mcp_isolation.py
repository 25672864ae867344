"""An MCP server's secret is out of the agents' reach: run as root, with the image's own
users (agents as `amelia-agent`, uid 10001; MCP servers as `amelia-mcp`, uid 10002, both
made by the test setup with the Dockerfile's commands), through the real `amelia action`.

The docs server (`tests/mcp_server.py`, built with the `mcp` package) gets `DOCS_API_KEY`
from the `mcp_secrets` input and writes it into a file of its HOME. The developer, on each
driver, first runs `credential_probe.py` through its shell (every visible process's
environ, cmdline and open files, the server's included), `env`, the server's own
`/proc/<pid>/environ` by its pid, and a listing and read of the server's HOME; then asks
the server's `whisper` tool, which answers with the key. None of what the shell copied out
holds the key, raw or base64-encoded; each read of the server's environment or files was
refused; the model got the tool's answer with the key masked; the server ran as uid 10002
and is gone once the run ends.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from amelia.agents.prompts import DEVELOPER_INSTRUCTIONS
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from amelia.testing.openai_server import RecordedRequest as OpenAIRequest
from amelia.testing.openai_server import ScriptedOpenAIServer, ScriptItem, tool_call
from amelia.testing.openai_server import text as openai_text
from amelia.testing.scripted_claude import role_of
from tests import mcp_server
from tests.image_user import ImageUser
from tests.security.probe_results import PROBE, ProbeDump, found_in

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
"""The agent user cannot run the test environment's python (under /root)."""
SECRET = "docs-key-9d41c7a2be3f5e60"
ISSUE = 1
PLAN_PATH = f"docs/plans/2026-01-01-issue-{ISSUE}-add-a-farewell.md"
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
VERDICT: dict[str, Any] = {"verdict": "approved", "severity": "none", "summary": "fine"}


@pytest.fixture(scope="module")
def reachable(image_user: ImageUser, mcp_image_user: ImageUser) -> Iterator[Path]:
    """A directory every uid may enter, as a runner's workspace is, holding a Python
    environment with the `mcp` package (the versions uv.lock pins) that the MCP user can
    run, and a copy of the docs server and of the probe."""
    base = Path(tempfile.mkdtemp(prefix="amelia-mcp-isolation-"))
    base.chmod(0o755)
    constraints = base / "constraints.txt"
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is needed to make a Python environment the MCP user can run")
    export = ["export", "--quiet", "--project", str(REPO), "--frozen", "--no-dev"]
    export += ["--no-emit-project", "--no-hashes", "--no-header", "--format", "requirements.txt"]
    python = base / "venv" / "bin" / "python"
    install = ["pip", "install", "--quiet", "--python", str(python)]
    for arguments in (
        [*export, "--output-file", str(constraints)],
        ["venv", "--quiet", "--python", SYSTEM_PYTHON, str(base / "venv")],
        [*install, "--constraints", str(constraints), f"mcp=={version('mcp')}"],
    ):
        subprocess.run([uv, *arguments], check=True)
    shutil.copy(mcp_server.__file__, base / "mcp_server.py")
    shutil.copy(PROBE, base / "credential_probe.py")
    for directory in [base, *base.rglob("*")]:
        if directory.is_dir():
            directory.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def config(reachable: Path, pid_file: Path) -> str:
    python = reachable / "venv" / "bin" / "python"
    return (
        "mcp:\n"
        "  servers:\n"
        "    docs:\n"
        f"      command: {python}\n"
        f"      args: [{reachable / 'mcp_server.py'}, --pid-file, {pid_file}]\n"
        "      env: {DOCS_API_KEY: {secret: DOCS_API_KEY}}\n"
        "  agents:\n"
        "    developer: {docs: all}\n"
    )


def attack(dump: Path, pid_file: Path, reachable: Path) -> str:
    """What the developer's shell runs: the probe, `env`, the server's environ by its pid,
    the server's HOME."""
    return (
        f"{SYSTEM_PYTHON} {reachable / 'credential_probe.py'} {dump}; "
        f"env > {dump}.env; "
        f"pid=$(cat {pid_file}); grep -E '^(Uid|Gid):' /proc/$pid/status > {dump}.status; "
        f"cat /proc/$pid/environ > {dump}.environ 2>&1; "
        "for home in /tmp/amelia-mcp-docs-*; do "
        f'ls -la "$home"; cat "$home/{mcp_server.CREDENTIALS_FILE}"; '
        f"done > {dump}.files 2>&1; true"
    )


def implement(harness: ActionHarness, reachable: Path, pid_file: Path, **options: Any) -> ActionRun:
    harness.commit_files("main", {".github/amelia.yml": config(reachable, pid_file)})
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    assert number == ISSUE
    harness.push_branch(f"amelia/issue-{ISSUE}", {PLAN_PATH: DEFAULT_PLAN})
    inputs = {"mcp_secrets": f"DOCS_API_KEY={SECRET}", **options.pop("inputs", {})}
    return harness.run(
        "issue_comment",
        harness.comment_event(ISSUE, "/amelia implement"),
        inputs=inputs,
        env={"AMELIA_MCP_USER": "amelia-mcp", **options.pop("env", {})},
    )


def assert_the_secret_stayed_out_of_reach(
    dump: Path, pid_file: Path, result: ActionRun, model_text: str
) -> None:
    assert result.exit_code == 0, result.stdout + result.stderr
    copied = b"".join(
        path.read_bytes() for path in dump.parent.iterdir() if path.name.startswith(dump.name)
    )
    assert found_in(copied, {"DOCS_API_KEY": SECRET}) == set()
    # The server ran as the MCP user; its environment and its files were refused.
    pid = int(pid_file.read_text(encoding="ascii"))
    status = Path(f"{dump}.status").read_text().split()
    assert status == ["Uid:", *["10002"] * 4, "Gid:", *["10002"] * 4]
    assert "Permission denied" in Path(f"{dump}.environ").read_text()
    files = Path(f"{dump}.files").read_text()
    assert "Permission denied" in files and "/tmp/amelia-mcp-docs-" in files
    probe = ProbeDump(dump)
    assert probe.process(pid)["environ"] == "EACCES"
    assert probe.process(pid)["fd"] == "EACCES"
    # The shell really read what it could: its own environment, its own processes'.
    assert b"HOME=" in Path(f"{dump}.env").read_bytes()
    assert b"PATH=" in probe.sections("environ")
    # The server had the key (the tool said it, masked on its way to the model) …
    assert "my key is ***" in model_text and SECRET not in model_text
    # … and it is gone with the run.
    assert not Path(f"/proc/{pid}").exists()


@pytest.fixture
def dumps(image_user: ImageUser, mcp_image_user: ImageUser, reachable: Path) -> Iterator[Path]:
    """Where the agent's shell writes (its user's) and the server its pid (its user's)."""
    base = Path(tempfile.mkdtemp(prefix="amelia-mcp-dumps-", dir=reachable))
    base.chmod(0o755)
    for name, user in (("agent", image_user), ("server", mcp_image_user)):
        (base / name).mkdir(mode=0o755)
        os.chown(base / name, user.uid, user.gid)
    yield base
    shutil.rmtree(base, ignore_errors=True)


def test_the_claude_developers_shell_cannot_read_the_mcp_servers_secret(
    reachable: Path, dumps: Path
) -> None:
    dump, pid_file = dumps / "agent" / "dump", dumps / "server" / "pid"
    root = dumps / "action"
    workspace = root / "workspace"
    developer: Sequence[Turn] = [
        [tool_use("Bash", {"command": attack(dump, pid_file, reachable), "description": "Look"})],
        [tool_use("mcp__docs__whisper", {}, id="toolu_whisper")],
        [tool_use("Write", {"file_path": str(workspace / "farewell.py"), "content": FAREWELL})],
        [text("Added farewell.py")],
    ]
    reviewer: Sequence[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    with ActionHarness(root, script=script, agent_user="amelia-agent") as harness:
        result = implement(harness, reachable, pid_file)
        assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL

    developer_requests = [r for r in result.model_requests if role_of(r) == "developer"]
    text_seen = json.dumps([request.body for request in developer_requests])
    assert_the_secret_stayed_out_of_reach(dump, pid_file, result, text_seen)
    # The CLI got its servers in a file, not on its command line (which every user reads).
    command_lines = ProbeDump(dump).sections("cmdline")
    assert b"--mcp-config\0/" in command_lines
    assert b"Bearer amelia-mcp-" not in command_lines


def test_the_api_developers_shell_cannot_read_the_mcp_servers_secret(
    reachable: Path, dumps: Path
) -> None:
    dump, pid_file = dumps / "agent" / "dump", dumps / "server" / "pid"
    developer: list[Sequence[ScriptItem]] = [
        [tool_call("run_shell_command", {"command": attack(dump, pid_file, reachable)})],
        [tool_call("mcp__docs__whisper", {})],
        [tool_call("write_file", {"file_path": "farewell.py", "content": FAREWELL})],
        [openai_text("Added farewell.py")],
    ]
    asked = {"developer": 0}

    def answer(request: OpenAIRequest) -> Sequence[ScriptItem]:
        if DEVELOPER_INSTRUCTIONS.splitlines()[0] not in json.dumps(request.body):
            return [tool_call("final_result", VERDICT)]
        asked["developer"] += 1
        return developer[min(asked["developer"], len(developer)) - 1]

    with (
        ScriptedOpenAIServer(script=answer) as model,
        ActionHarness(dumps / "action", agent_user="amelia-agent") as harness,
    ):
        result = implement(
            harness,
            reachable,
            pid_file,
            inputs={
                "driver": "api:openai",
                "model": "openai:gpt-x",
                "openai_api_key": "sk-proj-test-key-0000000000000001",
            },
            env={"OPENAI_BASE_URL": model.url},
        )
        assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL
        text_seen = json.dumps([request.body for request in model.requests])

    assert asked["developer"] >= 4
    assert_the_secret_stayed_out_of_reach(dump, pid_file, result, text_seen)
