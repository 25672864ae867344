"""Start a container action the way GitHub's runner does, against a real Docker Engine.

The source of truth is actions/runner: `ContainerActionHandler.RunAsync` decides what the
container gets, `DockerCommandManager.DockerRun` how `docker run` is called:

    docker run --name <image>_<6 hex> --label <6 hex> --workdir /github/workspace --rm
      -e NAME ... -e GITHUB_ACTIONS=true -e CI=true [--entrypoint runs.entrypoint]
      -v /var/run/docker.sock:/var/run/docker.sock -v <temp>:/github/runner_temp
      -v <temp>/_github_home:/github/home -v <temp>/_github_workflow:/github/workflow
      -v <temp>/_runner_file_commands:/github/file_commands -v <workspace>:/github/workspace
      <image> [runs.args]

- Every variable goes by name only (`-e NAME`); its value is in the docker client's own
  environment, so no secret appears in a command line. The variables: the step's `env:`,
  `INPUT_<NAME>` for every input of action.yml (its default unless the workflow sets it),
  `HOME`, the `GITHUB_*` of the github context's allow-list, the `RUNNER_*` of the runner
  context and the runtime's `ACTIONS_*` tokens and URLs. A value that is a host path under
  a mount becomes the container's path (`TranslateToContainerPath`: the workspace, the
  file commands, the event, HOME and `RUNNER_TEMP` -> `/github/runner_temp`); any other
  host path (`RUNNER_WORKSPACE`, `RUNNER_TOOL_CACHE`) is passed unchanged.
- The workspace and the runner's directories belong to the runner's user (uid 1001 on
  hosted runners); the container runs as root. The Docker socket mounted is the engine's
  own (on a runner, the host daemon's `/var/run/docker.sock`).
- One deviation, forced by the machines the tests run on: `--network host`, so that the
  container reaches the local GitHub and model servers on 127.0.0.1 (a runner adds
  `--network` only for a job container's network).

`ContainerActionRunner.run()` prepares those directories like the runner (a fresh home,
the event at `_github_workflow/event.json`, empty `set_output_<uuid>`,
`step_summary_<uuid>`, ... files), runs the container, and returns its exit code, output,
the parsed `GITHUB_OUTPUT`, the step summary and what it left in the home directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from amelia.testing.action_harness import parse_outputs
from amelia.testing.action_inputs import ACTION_YML, runner_inputs
from tests.integration.container.engine import Engine

RUNNER_UID = 1001
"""The runner's user on GitHub-hosted runners: it owns the checkout and `_temp`."""
CONTAINER_WORKSPACE = "/github/workspace"
CONTAINER_RUNNER_TEMP = "/github/runner_temp"
DOCKER_SOCKET = "/var/run/docker.sock"
HOSTED_RUNNER_WORK = "/home/runner/work"
_INPUT_EXPRESSION = re.compile(r"\$\{\{\s*inputs\.([A-Za-z0-9_-]+)\s*\}\}")
_FILE_COMMANDS = {
    "GITHUB_OUTPUT": "set_output",
    "GITHUB_STEP_SUMMARY": "step_summary",
    "GITHUB_ENV": "set_env",
    "GITHUB_PATH": "add_path",
    "GITHUB_STATE": "save_state",
}


@dataclass(frozen=True)
class ActionManifest:
    """The `runs:` block of a docker action's action.yml."""

    image: str
    entrypoint: str | None = None
    args: tuple[str, ...] | None = None
    env: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def load(cls, path: Path = ACTION_YML) -> ActionManifest:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
        runs = document.get("runs") or {}
        if runs.get("using") != "docker":
            raise ValueError(f"{path}: runs.using is {runs.get('using')!r}, not docker")
        args = runs.get("args")
        return cls(
            image=str(runs["image"]),
            entrypoint=runs.get("entrypoint"),
            args=None if args is None else tuple(str(arg) for arg in args),
            env={str(k): str(v) for k, v in (runs.get("env") or {}).items()},
        )

    def evaluated_args(self, inputs: Mapping[str, str]) -> list[str]:
        """`runs.args` with `${{ inputs.name }}` filled in (the only expression we use)."""

        def fill(found: re.Match[str]) -> str:
            return inputs.get(found.group(1), "")

        return [_INPUT_EXPRESSION.sub(fill, arg) for arg in self.args or ()]


@dataclass(frozen=True)
class GitHubContext:
    """The github context's values a runner exports as `GITHUB_*` (its allow-list), for a
    workflow in `repository` run on a hosted runner; host paths are filled in by the run.
    The server's URLs default to a closed port on 127.0.0.1 (where a runner names
    github.com), so a test that forgets to point them at its local server reaches nothing."""

    repository: str = "octo/app"
    server_url: str = "http://127.0.0.1:9"
    api_url: str = "http://127.0.0.1:9/api/v3"
    actor: str = "maintainer"
    ref: str = "refs/heads/main"
    sha: str = "0" * 40
    run_id: str = "4242"
    extra: Mapping[str, str] = field(default_factory=dict)

    def variables(self, event_name: str) -> dict[str, str]:
        owner = self.repository.split("/", 1)[0]
        graphql = f"{self.api_url.removesuffix('/v3')}/graphql"
        values = {
            "GITHUB_ACTION": "__octo_amelia",
            "GITHUB_ACTION_REF": "v1",
            "GITHUB_ACTION_REPOSITORY": "octo/amelia",
            "GITHUB_ACTOR": self.actor,
            "GITHUB_ACTOR_ID": "1001001",
            "GITHUB_API_URL": self.api_url,
            "GITHUB_BASE_REF": "",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_GRAPHQL_URL": graphql,
            "GITHUB_HEAD_REF": "",
            "GITHUB_JOB": "amelia",
            "GITHUB_REF": self.ref,
            "GITHUB_REF_NAME": self.ref.rsplit("/", 1)[-1],
            "GITHUB_REF_PROTECTED": "false",
            "GITHUB_REF_TYPE": "branch",
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_ID": "700700",
            "GITHUB_REPOSITORY_OWNER": owner,
            "GITHUB_REPOSITORY_OWNER_ID": "700",
            "GITHUB_RETENTION_DAYS": "90",
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_RUN_ID": self.run_id,
            "GITHUB_RUN_NUMBER": "7",
            "GITHUB_SERVER_URL": self.server_url,
            "GITHUB_SHA": self.sha,
            "GITHUB_TRIGGERING_ACTOR": self.actor,
            "GITHUB_WORKFLOW": "amelia",
            "GITHUB_WORKFLOW_REF": f"{self.repository}/.github/workflows/amelia.yml@{self.ref}",
            "GITHUB_WORKFLOW_SHA": self.sha,
        }
        values.update(self.extra)
        return values


@dataclass(frozen=True)
class RunnerDirectories:
    """The runner's directories on the host for one job: its `_temp` (`RUNNER_TEMP`) and
    the checkout (`GITHUB_WORKSPACE`)."""

    temp: Path
    workspace: Path

    @property
    def home(self) -> Path:
        return self.temp / "_github_home"

    @property
    def workflow(self) -> Path:
        return self.temp / "_github_workflow"

    @property
    def file_commands(self) -> Path:
        return self.temp / "_runner_file_commands"

    def mounts(self) -> list[tuple[str, str]]:
        """(host, container) in the runner's order; later ones translate paths first."""
        return [
            (str(self.temp), CONTAINER_RUNNER_TEMP),
            (str(self.home), "/github/home"),
            (str(self.workflow), "/github/workflow"),
            (str(self.file_commands), "/github/file_commands"),
            (str(self.workspace), CONTAINER_WORKSPACE),
        ]

    def to_container(self, value: str) -> str:
        """The runner's `TranslateToContainerPath`: the newest mapping whose host path is
        the value or a parent of it wins; anything else is passed as it is."""
        for host, container in reversed(self.mounts()):
            if value == host:
                return container
            if value.startswith(host + "/"):
                return container + value[len(host) :]
        return value


@dataclass(frozen=True)
class ContainerRun:
    """One finished container action step."""

    argv: tuple[str, ...]
    environment: dict[str, str]
    """What the container was given by name (`-e NAME`), as the container sees it."""
    container: str
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    exported_env: dict[str, str]
    home_files: tuple[str, ...]

    @property
    def log(self) -> str:
        return self.stdout + self.stderr


def _owned_by_runner(path: Path) -> None:
    for entry in [path, *path.rglob("*")]:
        os.chown(entry, RUNNER_UID, RUNNER_UID, follow_symlinks=False)


class ContainerActionRunner:
    """Runs one docker action's image like actions/runner, one step per `run()`."""

    def __init__(
        self,
        engine: Engine,
        image: str,
        *,
        manifest: ActionManifest | None = None,
        action_yml: Path = ACTION_YML,
        network: str = "host",
    ) -> None:
        self.engine = engine
        self.image = image
        self.action_yml = action_yml
        self.manifest = manifest or ActionManifest.load(action_yml)
        self.network = network
        self.label = hashlib.sha256(str(engine.host).encode()).hexdigest()[:6]
        """Like the runner's instance label (a hash of its `.runner` file): every container
        of this runner carries it."""

    def environment(
        self,
        directories: RunnerDirectories,
        *,
        event_name: str,
        github: GitHubContext,
        inputs: Mapping[str, str],
        token: str,
        env: Mapping[str, str],
        runtime_token: str,
        file_commands: Mapping[str, str],
    ) -> dict[str, str]:
        """The variables `docker run` passes, host paths already translated."""
        variables: dict[str, str] = {}
        variables.update(self.manifest.env)
        variables.update(env)
        variables.update(runner_inputs(token, inputs, path=self.action_yml))
        variables["HOME"] = str(directories.home)
        variables.update(github.variables(event_name))
        variables.update(
            {
                "GITHUB_EVENT_PATH": str(directories.workflow / "event.json"),
                "GITHUB_WORKSPACE": str(directories.workspace),
                **{name: str(directories.file_commands / f) for name, f in file_commands.items()},
            }
        )
        variables.update(
            {
                "RUNNER_OS": "Linux",
                "RUNNER_ARCH": "X64",
                "RUNNER_NAME": "GitHub Actions 2",
                "RUNNER_ENVIRONMENT": "github-hosted",
                "RUNNER_TOOL_CACHE": "/opt/hostedtoolcache",
                "RUNNER_TEMP": str(directories.temp),
                "RUNNER_WORKSPACE": str(directories.workspace.parent),
            }
        )
        variables.update(
            {
                "ACTIONS_RUNTIME_URL": "https://pipelines.actions.githubusercontent.com/x/",
                "ACTIONS_RUNTIME_TOKEN": runtime_token,
                "ACTIONS_CACHE_URL": "https://artifactcache.actions.githubusercontent.com/x/",
                "ACTIONS_RESULTS_URL": "https://results-receiver.actions.githubusercontent.com/",
            }
        )
        return {name: directories.to_container(value) for name, value in variables.items()}

    def command(
        self, directories: RunnerDirectories, names: Sequence[str], inputs: Mapping[str, str]
    ) -> tuple[list[str], str]:
        """The `docker run` argument list and the container's name."""
        sanitized = re.sub(r"[^a-zA-Z0-9_.-]", "", self.image.replace(":", ""))[:40]
        name = f"{sanitized}_{uuid.uuid4().hex[:6]}"
        argv = [
            "run",
            "--name",
            name,
            "--label",
            self.label,
            "--workdir",
            CONTAINER_WORKSPACE,
            "--rm",
        ]
        for variable in names:
            argv += ["-e", variable]
        argv += ["-e", "GITHUB_ACTIONS=true"]
        if "CI" not in names:
            argv += ["-e", "CI=true"]
        if self.manifest.entrypoint:
            argv += ["--entrypoint", self.manifest.entrypoint]
        argv += ["--network", self.network]
        argv += ["-v", f"{self.engine.socket}:{DOCKER_SOCKET}"]
        for host, container in directories.mounts():
            argv += ["-v", f"{host}:{container}"]
        argv.append(self.image)
        argv += self.manifest.evaluated_args(inputs)
        return argv, name

    def run(
        self,
        directories: RunnerDirectories,
        *,
        event_name: str,
        event: Mapping[str, Any] | str,
        github: GitHubContext | None = None,
        inputs: Mapping[str, str] | None = None,
        token: str = "",
        env: Mapping[str, str] | None = None,
        runtime_token: str = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.runtime",
        while_running: Callable[[str], None] | None = None,
        timeout: float = 600,
    ) -> ContainerRun:
        """One step: `inputs` are the workflow's `with:` values (by input name), `env` the
        step's `env:`, `token` what `${{ github.token }}` gives the `github_token` default.
        `while_running(container_name)` runs in a thread meanwhile."""
        chosen_inputs = dict(inputs or {})
        for directory in (directories.home, directories.workflow, directories.file_commands):
            directory.mkdir(parents=True, exist_ok=True)
        text = event if isinstance(event, str) else json.dumps(event)
        (directories.workflow / "event.json").write_text(text, encoding="utf-8")
        step = uuid.uuid4()
        file_commands = {name: f"{prefix}_{step}" for name, prefix in _FILE_COMMANDS.items()}
        for file_name in file_commands.values():
            (directories.file_commands / file_name).touch()
        _owned_by_runner(directories.temp)
        _owned_by_runner(directories.workspace)

        variables = self.environment(
            directories,
            event_name=event_name,
            github=github or GitHubContext(),
            inputs=chosen_inputs,
            token=token,
            env=env or {},
            runtime_token=runtime_token,
            file_commands=file_commands,
        )
        argv, name = self.command(directories, list(variables), chosen_inputs)
        client_env = self.engine.environment(variables)
        watcher = None
        with subprocess.Popen(
            [self.engine.client, *argv],
            env=client_env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            errors="replace",
        ) as process:
            if while_running is not None:
                watcher = threading.Thread(target=while_running, args=(name,), daemon=True)
                watcher.start()
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.engine.run("rm", "--force", name, check=False)
                process.kill()
                raise
            finally:
                if watcher is not None:
                    watcher.join(timeout)

        def read(variable: str) -> str:
            path = directories.file_commands / file_commands[variable]
            return path.read_text(encoding="utf-8", errors="replace")

        home = directories.home
        return ContainerRun(
            argv=tuple(argv),
            environment=variables,
            container=name,
            returncode=process.returncode,
            stdout=stdout,
            stderr=stderr,
            outputs=parse_outputs(read("GITHUB_OUTPUT")),
            summary=read("GITHUB_STEP_SUMMARY"),
            exported_env=parse_outputs(read("GITHUB_ENV")),
            home_files=tuple(
                sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
            ),
        )
