"""Start a rehearsed image the way the GitHub runner starts a container action.

The runner does `docker run --workdir /github/workspace --rm` with the checkout mounted at
/github/workspace (owned by the runner's user, uid 1001 on hosted runners, while the
container runs as root), HOME=/github/home, the event payload at
/github/workflow/event.json, the file commands (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, …) under
/github/file_commands, inputs as INPUT_<NAME> and the GITHUB_* variables. We mount the same
directories into an overlay of the image root, so every run starts from the untouched image
and leaves it untouched (the container layer is thrown away, as with --rm).
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from scripts.image_rehearsal.mounts import MountStack, container_mounts, remove_tree
from scripts.image_rehearsal.plan import ImageConfig
from scripts.image_rehearsal.rootfs import DEFAULT_PATH

RUNNER_UID = 1001
WORKSPACE = "/github/workspace"
_GITHUB_DIRS = ("workspace", "home", "workflow", "file_commands")


class EntrypointRun(BaseModel):
    """What a container action run leaves behind: exit code, logs and file commands."""

    model_config = ConfigDict(frozen=True)

    command: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    step_summary: str
    exported_env: dict[str, str]
    home_files: tuple[str, ...] = ()
    """Files left in /github/home, relative to it: what later steps of the job can read."""


def input_variables(inputs: Mapping[str, str]) -> dict[str, str]:
    """Action inputs as the runner passes them: INPUT_ + upper-cased name, spaces as `_`."""
    return {f"INPUT_{name.replace(' ', '_').upper()}": value for name, value in inputs.items()}


def image_command(
    config: ImageConfig,
    *,
    entrypoint: Sequence[str] | None = None,
    args: Sequence[str] | None = None,
) -> tuple[str, ...]:
    """What `docker run` executes: runs.entrypoint / runs.args of action.yml override the
    image's ENTRYPOINT / CMD."""
    chosen_entrypoint = tuple(entrypoint) if entrypoint is not None else config.entrypoint
    if entrypoint is not None and args is None:
        # An overridden entrypoint drops the image's CMD, as `docker run --entrypoint` does.
        return chosen_entrypoint
    chosen_args = tuple(args) if args is not None else config.cmd
    return chosen_entrypoint + chosen_args


def parse_file_command(text: str) -> dict[str, str]:
    """`name=value` lines and `name<<DELIMITER` blocks, as GITHUB_OUTPUT / GITHUB_ENV hold."""
    values: dict[str, str] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        heredoc = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if heredoc:
            name, delimiter = heredoc.group(1), heredoc.group(2)
            body: list[str] = []
            while index < len(lines) and lines[index] != delimiter:
                body.append(lines[index])
                index += 1
            index += 1
            values[name] = "\n".join(body)
        elif "=" in line:
            name, _, value = line.partition("=")
            values[name] = value
    return values


def run_entrypoint(
    root: Path,
    env: Mapping[str, str],
    workspace_source: Path,
    event_json: Mapping[str, object] | str,
    *,
    command: Sequence[str],
    image_env: Mapping[str, str] | None = None,
    runner_uid: int = RUNNER_UID,
    timeout_seconds: float = 600.0,
    host_paths: Sequence[Path] = (),
) -> EntrypointRun:
    """Run `command` in the image at `root` as the runner would run the action's container.

    `workspace_source` is mounted (not copied) at /github/workspace, so commits and files the
    action writes land there; it is chowned to `runner_uid` first, as a runner's checkout is.
    The environment is `env -i` + the image's ENV + the runner's variables + `env`.
    Each of `host_paths` (a directory) is mounted at its own path inside the container, like
    `docker run -v /path:/path`, e.g. a local `origin` the workspace's remote names.
    """
    scratch = Path(tempfile.mkdtemp(prefix="amelia-container-run-"))
    try:
        return _run_in_overlay(
            root,
            scratch,
            dict(env),
            workspace_source,
            event_json if isinstance(event_json, str) else json.dumps(event_json),
            tuple(command),
            dict(image_env) if image_env is not None else {"PATH": DEFAULT_PATH},
            runner_uid,
            timeout_seconds,
            tuple(path.resolve() for path in host_paths),
        )
    finally:
        remove_tree(scratch)


def _run_in_overlay(
    root: Path,
    scratch: Path,
    env: dict[str, str],
    workspace_source: Path,
    event_text: str,
    command: tuple[str, ...],
    image_env: dict[str, str],
    runner_uid: int,
    timeout_seconds: float,
    host_paths: tuple[Path, ...],
) -> EntrypointRun:
    run_id = uuid.uuid4().hex
    runner = scratch / "runner"
    for name in _GITHUB_DIRS[1:]:
        (runner / name).mkdir(parents=True)
    (runner / "workflow/event.json").write_text(event_text)
    files = {
        "GITHUB_OUTPUT": f"set_output_{run_id}",
        "GITHUB_STEP_SUMMARY": f"step_summary_{run_id}",
        "GITHUB_ENV": f"set_env_{run_id}",
        "GITHUB_PATH": f"add_path_{run_id}",
        "GITHUB_STATE": f"save_state_{run_id}",
    }
    for file_name in files.values():
        (runner / "file_commands" / file_name).touch()
    subprocess.run(["chown", "-R", f"{runner_uid}:{runner_uid}", str(runner)], check=True)
    subprocess.run(["chown", "-R", f"{runner_uid}:{runner_uid}", str(workspace_source)], check=True)

    merged = scratch / "merged"
    for name in ("upper", "work", "merged"):
        (scratch / name).mkdir()
    environment = {
        **image_env,
        "HOME": "/github/home",
        "GITHUB_ACTIONS": "true",
        "CI": "true",
        "GITHUB_WORKSPACE": WORKSPACE,
        "GITHUB_EVENT_PATH": "/github/workflow/event.json",
        **{name: f"/github/file_commands/{file}" for name, file in files.items()},
        **env,
    }
    overlay = MountStack()
    try:
        overlay.mount(
            merged,
            "-t",
            "overlay",
            "-o",
            f"lowerdir={root},upperdir={scratch / 'upper'},workdir={scratch / 'work'}",
            "overlay",
        )
        for name in _GITHUB_DIRS:
            (merged / "github" / name).mkdir(parents=True, exist_ok=True)
        overlay.bind(workspace_source, merged / "github/workspace")
        for name in _GITHUB_DIRS[1:]:
            overlay.bind(runner / name, merged / "github" / name)
        for host_path in host_paths:
            # The mount point is made in the overlay's upper layer, so the image stays as it is.
            target = merged / host_path.relative_to("/")
            target.mkdir(parents=True, exist_ok=True)
            overlay.bind(host_path, target)
        with container_mounts(merged):
            completed = subprocess.run(
                ["chroot", str(merged), "/usr/bin/env", "-C", WORKSPACE, "--", *command],
                env=environment,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=timeout_seconds,
                check=False,
            )
    finally:
        overlay.release()

    def read(name: str) -> str:
        return (runner / "file_commands" / files[name]).read_text(errors="replace")

    return EntrypointRun(
        command=command,
        returncode=completed.returncode,
        stdout=completed.stdout,
        stderr=completed.stderr,
        outputs=parse_file_command(read("GITHUB_OUTPUT")),
        step_summary=read("GITHUB_STEP_SUMMARY"),
        exported_env=parse_file_command(read("GITHUB_ENV")),
        home_files=tuple(
            sorted(
                str(path.relative_to(runner / "home"))
                for path in (runner / "home").rglob("*")
                if path.is_file()
            )
        ),
    )
