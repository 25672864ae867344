"""Through the real `amelia action` entry, the developer agent's shell finds no credential.

The Action harness starts `amelia action` as a runner starts the container: every input of
action.yml as `INPUT_*` (defaults included), the GitHub token, a model key and the runner's
own tokens in the environment. The developer then runs `credential_probe.py` through its
shell tool, as an attacker's one-liner would: it builds the /proc paths at run time, walks
up its ancestors (the shell, the Claude Code CLI, amelia, ...) and over every process it
can see, and copies out every `environ`, `cmdline` and readable fd. The dump must hold
none of the credentials, raw or base64-encoded, for both drivers:

- the Claude Code CLI against the scripted Anthropic server, with an API key or a Claude
  Code OAuth token: the CLI holds only the credential proxy's URL and per-run token; the
  server still receives the real credential;
- the API driver's `run_shell_command` against the scripted OpenAI-compatible server:
  pydantic-ai talks to the proxy; the server still receives the real key.

Each test also shows the probe really read what it claims: amelia's environ with its
ordinary inputs in clear, and the CLI's environ with the proxy's URL. As in the Action's
container (amelia pid 1 of its pid namespace, Docker's default capabilities), the probe
also attaches to and reads the memory of its ancestors: amelia's is refused, the CLI's
is read and holds no credential.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from amelia.agents.prompts import DEVELOPER_INSTRUCTIONS
from amelia.redaction import is_secret_name
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use
from amelia.testing.openai_server import RecordedRequest as OpenAIRequest
from amelia.testing.openai_server import ScriptedOpenAIServer, ScriptItem, tool_call
from amelia.testing.openai_server import text as openai_text
from tests.image_user import ImageUser
from tests.security.probe_results import PROBE, ProbeDump, found_in

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

DOCKER_CAPABILITIES = Path(__file__).resolve().with_name("docker_capabilities.py")
IS_ROOT = os.geteuid() == 0

FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
VERDICT: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "farewell mirrors greet",
    "comments": [],
}
ISSUE = 1
PLAN_PATH = f"docs/plans/2026-01-01-issue-{ISSUE}-add-a-farewell.md"


def fresh_credentials(model_key: str = "anthropic_api_key") -> dict[str, str]:
    """Values made for this test only, so no other process can hold them by chance: the
    GitHub token and two model keys as inputs (lower case), the runner's own tokens as
    variables. `model_key` is the Claude credential: `anthropic_api_key` or
    `claude_code_oauth_token`."""
    claude = {
        "anthropic_api_key": f"sk-ant-api03-{secrets.token_hex(20)}",
        "claude_code_oauth_token": f"sk-ant-oat01-{secrets.token_hex(20)}",
    }
    return {
        "github_token": f"ghs_{secrets.token_hex(18)}",
        model_key: claude[model_key],
        "openai_api_key": f"sk-proj-{secrets.token_hex(20)}",
        "ACTIONS_RUNTIME_TOKEN": f"eyJ{secrets.token_hex(24)}",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": f"eyJ{secrets.token_hex(24)}",
        **step_credentials(),
    }


def step_credentials() -> dict[str, str]:
    """Credentials a workflow commonly puts on amelia's step under their standard names:
    database clients' passwords, a database URL, a CI job's JWT, an error tracker's DSN."""
    return {
        "PGPASSWORD": f"pg-{secrets.token_hex(12)}",
        "MYSQL_PWD": f"my-{secrets.token_hex(12)}",
        "DATABASE_URL": f"postgres://app:{secrets.token_hex(12)}@db.internal/app",
        "CI_JOB_JWT": f"jwt-{secrets.token_hex(16)}",
        "SENTRY_DSN": f"https://{secrets.token_hex(16)}@o1.ingest.sentry.io/1",
        "STRIPE_SK": f"stripe-{secrets.token_hex(12)}",
    }


def probe_command(dump: Path, *arguments: str) -> str:
    return shlex.join([sys.executable, str(PROBE), str(dump), *arguments])


def implement(
    harness: ActionHarness,
    credentials: dict[str, str],
    *,
    inputs: dict[str, str] | None = None,
    env: dict[str, str] | None = None,
    launcher: Sequence[str] = (),
) -> ActionRun:
    """`/amelia implement` on an issue whose plan is already on its branch in origin, with
    the credentials as a runner passes them (inputs and the runner's own variables)."""
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    assert number == ISSUE
    harness.push_branch(f"amelia/issue-{ISSUE}", {PLAN_PATH: DEFAULT_PLAN})
    given = {name: value for name, value in credentials.items() if name.islower()}
    return harness.run(
        "issue_comment",
        harness.comment_event(ISSUE, "/amelia implement"),
        inputs={"anthropic_api_key": "", **given, **(inputs or {})},
        env={
            **{name: value for name, value in credentials.items() if name.isupper()},
            **(env or {}),
        },
        launcher=launcher,
    )


def amelia_pid(probe: ProbeDump) -> int:
    """The ancestor of the probe that is amelia's process (`python -m amelia.cli action`)."""
    for pid in probe.report["ancestors"]:
        if b"amelia.cli\0action" in probe.sections("cmdline", pid):
            return int(pid)
    raise AssertionError("amelia is not among the probe's ancestors")


def assert_amelias_environment_was_read(probe: ProbeDump) -> bytes:
    """amelia's environ was really read and holds the ordinary inputs, in clear."""
    pid = amelia_pid(probe)
    assert probe.process(pid)["environ"] == "read"
    environ = probe.sections("environ", pid)
    for variable in (b"INPUT_TRIGGER_PHRASE=/amelia\0", b"INPUT_DRIVER=", b"INPUT_PLAN_DIR="):
        assert variable in environ
    # The restart removed the credential variables, not just their values (a secret
    # input the workflow left unset is passed empty, and stays so).
    variables = dict(entry.split(b"=", 1) for entry in environ.split(b"\0") if b"=" in entry)
    assert b"INPUT_GITHUB_TOKEN" not in variables
    assert [name for name in variables if is_secret_name(name.decode()) and variables[name]] == []
    return environ


def claude_implement_with_probe(
    tmp_path: Path,
    *,
    model_key: str = "anthropic_api_key",
    launcher: Sequence[str] = (),
    probe_arguments: Sequence[str] = (),
) -> tuple[ActionRun, ProbeDump, dict[str, str]]:
    """`/amelia implement` with the Claude Code CLI, whose developer runs the probe through
    Bash first: the run, what the probe copied out, the credentials planted."""
    credentials = fresh_credentials(model_key)
    dump = tmp_path / "dump"
    root = tmp_path / "action"
    command = probe_command(dump, *probe_arguments)
    developer: Sequence[Turn] = [
        [tool_use("Bash", {"command": command, "description": "Look around"})],
        [
            tool_use(
                "Write", {"file_path": str(root / "workspace" / "farewell.py"), "content": FAREWELL}
            )
        ],
        [text("Added farewell.py")],
    ]
    reviewer: Sequence[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    with ActionHarness(root, script=script, token=credentials["github_token"]) as harness:
        result = implement(harness, credentials, launcher=launcher)
        assert result.exit_code == 0, result.stdout + result.stderr
        assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL
    return result, ProbeDump(dump), credentials


def claude_cli_pid(probe: ProbeDump) -> int:
    """The ancestor of the probe that is the Claude Code CLI (its program is `claude`)."""
    for pid in probe.report["ancestors"]:
        program = probe.sections("cmdline", pid).split(b"\0", 1)[0]
        if program.rsplit(b"/", 1)[-1] == b"claude":
            return int(pid)
    raise AssertionError("the Claude Code CLI is not among the probe's ancestors")


def assert_the_cli_reached_the_model_through_the_proxy(
    probe: ProbeDump, result: ActionRun, credentials: dict[str, str]
) -> None:
    """The CLI holds the proxy's URL on 127.0.0.1 and a per-run token in place of the
    credential (the other key variables blank); every model request reached the model
    with the real credential, swapped in by the proxy."""
    cli_environ = probe.sections("environ", claude_cli_pid(probe))
    proxy = re.search(rb"ANTHROPIC_BASE_URL=(http://127\.0\.0\.1:\d+/anthropic)\0", cli_environ)
    assert proxy is not None
    oauth = "claude_code_oauth_token" in credentials
    held, blank = ("CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY")[:: 1 if oauth else -1]
    cli_token = re.search(held.encode() + rb"=([^\0]+)\0", cli_environ)
    assert cli_token is not None and cli_token.group(1).decode() not in credentials.values()
    assert f"{blank}=\0".encode() in cli_environ
    if oauth:
        sent = {request.headers.get("authorization") for request in result.model_requests}
        assert sent == {f"Bearer {credentials['claude_code_oauth_token']}"}
    else:
        sent = {request.headers.get("x-api-key") for request in result.model_requests}
        assert sent == {credentials["anthropic_api_key"]}
    roles_answered = json.dumps([r.body for r in result.model_requests])
    assert DEVELOPER_INSTRUCTIONS.splitlines()[0] in roles_answered


@pytest.mark.parametrize("model_key", ["anthropic_api_key", "claude_code_oauth_token"])
def test_the_claude_developers_shell_finds_no_credential_in_any_process(
    tmp_path: Path, model_key: str
) -> None:
    result, probe, credentials = claude_implement_with_probe(tmp_path, model_key=model_key)

    assert found_in(probe.data, credentials) == set()
    assert_amelias_environment_was_read(probe)
    assert_the_cli_reached_the_model_through_the_proxy(probe, result, credentials)


@pytest.mark.skipif(not IS_ROOT, reason="a pid namespace and dropping capabilities need root")
def test_as_pid_1_with_dockers_capabilities_no_process_memory_holds_a_credential(
    tmp_path: Path,
) -> None:
    """As in the Action's container: amelia is pid 1 of its pid namespace and everything
    runs with Docker's default capabilities. The probe also attaches to and reads the
    memory of every ancestor: amelia's (which holds the credentials) is refused, the
    Claude Code CLI's is read and holds none of them."""
    launcher = [
        "unshare",
        "--pid",
        "--fork",
        "--mount-proc",
        sys.executable,
        str(DOCKER_CAPABILITIES),
    ]
    result, probe, credentials = claude_implement_with_probe(
        tmp_path, launcher=launcher, probe_arguments=("--memory",)
    )

    assert found_in(probe.data, credentials) == set()
    assert amelia_pid(probe) == 1
    amelia = probe.process(1)
    assert (amelia["environ"], amelia["mem"], amelia["maps"]) == ("EACCES",) * 3
    assert (amelia["ptrace"], amelia["process_vm_readv"]) == ("EPERM", "EPERM")
    cli = probe.process(claude_cli_pid(probe))
    assert (cli["environ"], cli["mem"], cli["ptrace"]) == ("read", "read", "attached")
    assert probe.sections("mem", claude_cli_pid(probe))
    assert_the_cli_reached_the_model_through_the_proxy(probe, result, credentials)


class _OpenAIScript:
    """The developer runs the probe through its shell tool, then writes a file; the
    reviewer approves."""

    def __init__(self, dump: Path) -> None:
        self.developer: list[Sequence[ScriptItem]] = [
            [tool_call("run_shell_command", {"command": probe_command(dump)})],
            [tool_call("write_file", {"file_path": "farewell.py", "content": FAREWELL})],
            [openai_text("Added farewell.py")],
        ]
        self.reviewer: list[Sequence[ScriptItem]] = [[tool_call("final_result", VERDICT)]]
        self.asked = {"developer": 0, "reviewer": 0}

    def __call__(self, request: OpenAIRequest) -> Sequence[ScriptItem]:
        role = (
            "developer"
            if DEVELOPER_INSTRUCTIONS.splitlines()[0] in json.dumps(request.body)
            else "reviewer"
        )
        turns = self.developer if role == "developer" else self.reviewer
        self.asked[role] += 1
        return turns[min(self.asked[role] - 1, len(turns) - 1)]


def test_the_api_developers_shell_finds_no_credential_in_any_process(tmp_path: Path) -> None:
    credentials = fresh_credentials()
    dump = tmp_path / "dump"
    script = _OpenAIScript(dump)
    with (
        ScriptedOpenAIServer(script=script) as model,
        ActionHarness(tmp_path / "action", token=credentials["github_token"]) as harness,
    ):
        run = implement(
            harness,
            credentials,
            inputs={"driver": "api:openai", "model": "openai:gpt-x"},
            env={"OPENAI_BASE_URL": model.url},
        )
        assert run.exit_code == 0, run.stdout + run.stderr
        assert harness.origin_file(f"amelia/issue-{ISSUE}", "farewell.py") == FAREWELL
        requests = list(model.requests)

    probe = ProbeDump(dump)
    assert found_in(probe.data, credentials) == set()
    environ = assert_amelias_environment_was_read(probe)
    assert b"INPUT_DRIVER=api:openai\0" in environ
    # The shell's parent is amelia itself: pydantic-ai runs in its process and reaches
    # the model through the proxy, which sent every request on with the real key.
    assert amelia_pid(probe) in probe.report["ancestors"][:2]
    assert script.asked["developer"] >= 3 and script.asked["reviewer"] >= 1
    authorizations = {request.headers.get("authorization") for request in requests}
    assert authorizations == {f"Bearer {credentials['openai_api_key']}"}


def test_credentials_on_the_step_under_their_standard_names_are_never_shown_or_posted(
    image_user: ImageUser,
) -> None:
    """The workflow puts PGPASSWORD, MYSQL_PWD, DATABASE_URL, CI_JOB_JWT, ... on amelia's
    step. The developer, as the image's agent user, prints them and fails its command: its
    shell has none of them, and neither the tool-errors comment nor any other write to
    GitHub, any model request or the log holds a value."""
    credentials = fresh_credentials()
    step = step_credentials()
    printed = " ".join(f"{name}=${name}" for name in step)
    base = Path(tempfile.mkdtemp(prefix="amelia-step-credentials-"))
    base.chmod(0o755)
    root = base / "action"
    developer: Sequence[Turn] = [
        [tool_use("Bash", {"command": f"echo {printed}; exit 3", "description": "Look"})],
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
        with ActionHarness(
            root, script=script, token=credentials["github_token"], agent_user=image_user.name
        ) as harness:
            run = implement(harness, {**credentials, **step})
    finally:
        shutil.rmtree(base, ignore_errors=True)

    assert run.exit_code == 0, run.stdout + run.stderr
    posted = json.dumps([request.body for request in run.github_writes])
    assert "PGPASSWORD=" in posted  # the failed command's output was posted
    everything = "\n".join([posted, run.model_text(), run.stdout, run.stderr, run.summary])
    assert [name for name, value in step.items() if value in everything] == []
