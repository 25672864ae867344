"""No credential of amelia's process is readable by an agent's tool through /proc.

A stand-in entry (`isolated_entry.py`) starts with planted credentials in its environment,
as a runner starts the Action's container, and runs `credential_probe.py` as an agent's
tool: it walks up its ancestors and over every process it can see, building the /proc
paths at run time, and copies out whatever it can read. Without isolation (`plain`) the
probe finds every planted credential, so the search is shown to work; with
`isolate_secrets()` it finds none, neither raw nor base64-encoded:

- as an ordinary process and as pid 1 of a new pid namespace (a container's view), with
  the full capabilities of this machine's root, `environ`, `cmdline` and `fd/*` of amelia
  are readable and hold none of them;
- with Docker's default capabilities (no CAP_SYS_PTRACE), amelia's memory holds them but
  `/proc/1/mem`, `process_vm_readv` and ptrace are refused, as is `environ`.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from amelia.isolation.handoff import HANDOFF_FD_VARIABLE
from tests.security.probe_results import ProbeDump, found_in

HERE = Path(__file__).resolve().parent
ENTRY = HERE / "isolated_entry.py"
DOCKER_CAPABILITIES = HERE / "docker_capabilities.py"

ORDINARY_INPUTS = {
    "INPUT_TRIGGER_PHRASE": "/amelia",
    "INPUT_PLAN_DIR": "docs/plans",
    "INPUT_BRANCH_PREFIX": "amelia/",
    "INPUT_DRIVER": "cli:claude",
}

is_root = os.geteuid() == 0
needs_root = pytest.mark.skipif(
    not is_root, reason="a pid namespace and dropping capabilities need root"
)


def planted_credentials() -> dict[str, str]:
    """Fresh values, so nothing else on the machine can hold them by chance."""
    return {
        "INPUT_GITHUB_TOKEN": f"ghs_{secrets.token_hex(18)}",
        "INPUT_ANTHROPIC_API_KEY": f"sk-ant-api03-{secrets.token_hex(20)}",
        "INPUT_CLAUDE_CODE_OAUTH_TOKEN": f"sk-ant-oat01-{secrets.token_hex(20)}",
        "INPUT_OPENAI_API_KEY": f"sk-proj-{secrets.token_hex(20)}",
        "INPUT_OPENROUTER_API_KEY": f"sk-or-v1-{secrets.token_hex(20)}",
        "GITHUB_TOKEN": f"ghs_{secrets.token_hex(18)}",
        "ANTHROPIC_API_KEY": f"sk-ant-api03-{secrets.token_hex(20)}",
        "ACTIONS_RUNTIME_TOKEN": f"eyJ{secrets.token_hex(24)}",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": f"eyJ{secrets.token_hex(24)}",
    }


def runner_environment(home: Path, credentials: dict[str, str]) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "GITHUB_ACTIONS": "true",
        **ORDINARY_INPUTS,
        **credentials,
    }


class Run:
    """One run of the entry and its probe, and what they left."""

    def __init__(self, workdir: Path, done: subprocess.CompletedProcess[str]) -> None:
        self.workdir = workdir
        self.done = done
        self.probe = ProbeDump(workdir / "dump")

    @property
    def starts(self) -> list[int]:
        return [int(line) for line in (self.workdir / "starts").read_text().split()]

    @property
    def received(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads((self.workdir / "received.json").read_text())
        return parsed

    def entry_report(self) -> dict[str, Any]:
        """What the probe could read of its parent, the entry (amelia)."""
        parent = self.probe.report["ancestors"][0]
        assert parent == self.starts[-1]
        return self.probe.process(parent)


def run_entry(
    tmp_path: Path,
    mode: str,
    credentials: dict[str, str],
    *,
    launch: str = "process",
    probe_arguments: tuple[str, ...] = (),
    extra_environment: dict[str, str] | None = None,
) -> Run:
    workdir = tmp_path / f"{mode}-{launch}"
    workdir.mkdir()
    command = [sys.executable, str(ENTRY), mode, str(workdir), *probe_arguments]
    if launch in ("pid1", "pid1-docker-capabilities"):
        if launch == "pid1-docker-capabilities":
            command = [sys.executable, str(DOCKER_CAPABILITIES), *command]
        command = ["unshare", "--pid", "--fork", "--mount-proc", *command]
    environment = {**runner_environment(tmp_path, credentials), **(extra_environment or {})}
    done = subprocess.run(
        command, env=environment, capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return Run(workdir, done)


def digests(credentials: dict[str, str]) -> dict[str, str]:
    return {name: hashlib.sha256(value.encode()).hexdigest() for name, value in credentials.items()}


LAUNCHES = [
    pytest.param("process", id="ordinary-process"),
    pytest.param("pid1", id="pid-1-of-a-container", marks=needs_root),
]


@pytest.mark.parametrize("launch", LAUNCHES)
def test_without_isolation_the_probe_finds_every_credential(tmp_path: Path, launch: str) -> None:
    credentials = planted_credentials()
    run = run_entry(tmp_path, "plain", credentials, launch=launch)

    assert run.entry_report()["environ"] == "read"
    assert found_in(run.probe.data, credentials) == set(credentials)


@pytest.mark.parametrize("launch", LAUNCHES)
def test_after_isolation_no_credential_is_in_environ_cmdline_or_fds(
    tmp_path: Path, launch: str
) -> None:
    credentials = planted_credentials()
    run = run_entry(tmp_path, "isolate", credentials, launch=launch)

    # Restarted in place once (same pid, pid 1 in the namespace), not looping.
    assert len(run.starts) == 2 and run.starts[0] == run.starts[1]
    if launch == "pid1":
        assert run.starts == [1, 1]
    assert run.received == {"digests": digests(credentials), "inspection_forbidden": True}
    # The probe really read amelia's environ (this root holds CAP_SYS_PTRACE), which still
    # carries the ordinary inputs, and listed its descriptors.
    entry = run.entry_report()
    assert (entry["environ"], entry["cmdline"]) == ("read", "read")
    assert isinstance(entry["fd"], dict) and entry["fd"]
    assert b"INPUT_TRIGGER_PHRASE=/amelia\0" in run.probe.data
    assert f"{HANDOFF_FD_VARIABLE}=".encode() in run.probe.data
    assert found_in(run.probe.data, credentials) == set()


docker_capabilities = pytest.mark.skipif(not is_root, reason="dropping capabilities needs root")


def _yama_allows_ptrace_of_a_parent() -> bool:
    scope = Path("/proc/sys/kernel/yama/ptrace_scope")
    return not scope.exists() or scope.read_text().strip() == "0"


@docker_capabilities
def test_with_dockers_capabilities_amelias_memory_is_out_of_reach(tmp_path: Path) -> None:
    credentials = planted_credentials()
    memory = ("--memory",)
    isolated = run_entry(
        tmp_path,
        "isolate",
        credentials,
        launch="pid1-docker-capabilities",
        probe_arguments=memory,
    )

    entry = isolated.entry_report()
    assert isolated.starts == [1, 1]
    assert isolated.received["inspection_forbidden"] is True
    assert entry["environ"] == entry["maps"] == entry["mem"] == "EACCES"
    assert entry["process_vm_readv"] == "EPERM"
    assert entry["ptrace"] == "EPERM"
    assert found_in(isolated.probe.data, credentials) == set()

    if not _yama_allows_ptrace_of_a_parent():
        pytest.skip("this kernel's Yama policy already forbids reading a parent's memory")
    # The same probe against the same process left inspectable reads its memory and
    # attaches to it: the refusal above is the isolation's doing, not the kernel's.
    plain = run_entry(
        tmp_path, "plain", credentials, launch="pid1-docker-capabilities", probe_arguments=memory
    )
    plain_entry = plain.entry_report()
    assert (plain_entry["mem"], plain_entry["process_vm_readv"]) == ("read", "read")
    assert plain_entry["ptrace"] == "attached"
    assert found_in(plain.probe.sections("mem"), credentials) == set(credentials)
