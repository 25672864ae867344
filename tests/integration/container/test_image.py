"""The Action's image, built by Docker and started like GitHub's runner starts it."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from amelia import __version__
from tests.git_helpers import init_repo
from tests.integration.container.engine import Engine
from tests.integration.container.runner import (
    ActionManifest,
    ContainerActionRunner,
    ContainerRun,
    RunnerDirectories,
)

pytestmark = [pytest.mark.container, pytest.mark.timeout(600)]

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


@pytest.fixture
def directories(tmp_path: Path) -> RunnerDirectories:
    """A hosted runner's layout: `_work/_temp` and the checkout `_work/app/app`."""
    workspace = init_repo(tmp_path / "_work" / "app" / "app", message="first")
    return RunnerDirectories(temp=tmp_path / "_work" / "_temp", workspace=workspace)


def start(
    engine: Engine,
    image: str,
    directories: RunnerDirectories,
    entrypoint: str,
    *args: str,
    env: dict[str, str] | None = None,
) -> ContainerRun:
    """The image as an action whose action.yml sets `runs.entrypoint` and `runs.args`."""
    manifest = ActionManifest(image="Dockerfile", entrypoint=entrypoint, args=args)
    runner = ContainerActionRunner(engine, image, manifest=manifest)
    return runner.run(
        directories,
        event_name="issue_comment",
        event={"action": "created", "comment": {"body": "/amelia help"}},
        token="not-a-real-token",
        env=env,
    )


def test_the_image_starts_amelia_action_as_root_from_its_venv(engine: Engine, image: str) -> None:
    (inspected,) = json.loads(engine.run("image", "inspect", image).stdout)
    config = inspected["Config"]
    assert config["Entrypoint"] == ["amelia", "action"]
    assert config["Cmd"] is None
    assert config["User"] == ""
    env = dict(item.split("=", 1) for item in config["Env"])
    assert env["PATH"] == f"/opt/amelia/.venv/bin:{SYSTEM_PATH}"
    assert env["VIRTUAL_ENV"] == "/opt/amelia/.venv"
    assert (env["PIP_BREAK_SYSTEM_PACKAGES"], env["PYTHONUNBUFFERED"]) == ("1", "1")
    assert env["HOME"] == "/root"
    assert config["Labels"]["org.opencontainers.image.title"] == "amelia"


def test_the_claude_code_binary_and_amelia_have_layers_of_their_own_around_the_venv(
    engine: Engine, image: str
) -> None:
    """The bundled CLI (about 380 MB) is one layer, which a change of amelia or of its other
    dependencies leaves as it is; the venv's dependencies are the layer above it, and
    amelia's own files (the package, its dist-info, the console script) a small one on top,
    the only layer a change of amelia writes."""
    history = engine.run(
        "history", "--no-trunc", "--human=false", "--format", "{{.Size}}\t{{.CreatedBy}}", image
    ).stdout.splitlines()
    layers = [(int(size), created) for size, created in (row.split("\t", 1) for row in history)]
    (claude,) = [n for n, (_, created) in enumerate(layers) if "COPY /opt/claude/claude" in created]
    (venv,) = [
        n for n, (_, created) in enumerate(layers) if "/opt/amelia/.venv /opt/amelia" in created
    ]
    (package,) = [
        n for n, (_, created) in enumerate(layers) if "COPY /opt/amelia-package/ " in created
    ]
    assert package < venv < claude  # newest first
    assert 300e6 < layers[claude][0] < 500e6
    assert layers[venv][0] < 200e6
    assert 1e6 < layers[package][0] < 20e6


def test_amelia_starts_inside_the_image(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    version = start(engine, image, directories, "amelia", "version")
    assert (version.returncode, version.stdout.strip()) == (0, __version__), version.log
    helped = start(engine, image, directories, "amelia", "--help")
    assert helped.returncode == 0, helped.log
    assert "Turn an issue into a reviewed change" in helped.stdout


def test_the_image_holds_what_a_projects_setup_needs_to_start(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    # The PATH a setup gets: amelia's own virtual environment is not the project's Python.
    script = (
        f"export PATH={SYSTEM_PATH} VIRTUAL_ENV=; pip --version && python3 -m venv /tmp/project"
        " && /tmp/project/bin/python -m pip --version && curl --version && xz --version"
    )
    run = start(engine, image, directories, "/bin/sh", "-c", script)
    assert run.returncode == 0, run.log
    assert "python 3.11" in run.stdout and "curl " in run.stdout and "xz (XZ Utils)" in run.stdout


def test_the_agent_user_and_setpriv_are_in_the_image(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    """The user every agent process runs as: uid and gid 10001, no login, no other group."""
    run = start(
        engine,
        image,
        directories,
        "/bin/sh",
        "-c",
        "grep ^amelia-agent: /etc/passwd /etc/group && setpriv --reuid=amelia-agent "
        "--regid=amelia-agent --clear-groups --no-new-privs -- "
        "grep -E '^(Uid|Gid|Groups|NoNewPrivs):' /proc/self/status",
    )
    assert run.returncode == 0, run.log
    lines = run.stdout.splitlines()
    assert lines[:2] == [
        "/etc/passwd:amelia-agent:x:10001:10001::/nonexistent:/usr/sbin/nologin",
        "/etc/group:amelia-agent:x:10001:",
    ]
    assert " ".join(lines[2:]).split() == [
        *("Uid:", "10001", "10001", "10001", "10001"),
        *("Gid:", "10001", "10001", "10001", "10001"),
        "Groups:",
        *("NoNewPrivs:", "1"),
    ]


def test_the_mcp_server_user_is_in_the_image(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    """The user MCP servers run as: uid and gid 10002, neither amelia's nor the agents'."""
    run = start(
        engine,
        image,
        directories,
        "/bin/sh",
        "-c",
        "grep ^amelia-mcp: /etc/passwd /etc/group && setpriv --reuid=amelia-mcp "
        "--regid=amelia-mcp --clear-groups --no-new-privs -- "
        "grep -E '^(Uid|Gid|Groups):' /proc/self/status",
    )
    assert run.returncode == 0, run.log
    lines = run.stdout.splitlines()
    assert lines[:2] == [
        "/etc/passwd:amelia-mcp:x:10002:10002::/nonexistent:/usr/sbin/nologin",
        "/etc/group:amelia-mcp:x:10002:",
    ]
    assert " ".join(lines[2:]).split() == [
        *("Uid:", "10002", "10002", "10002", "10002"),
        *("Gid:", "10002", "10002", "10002", "10002"),
        "Groups:",
    ]


def test_the_venv_runs_on_debians_python(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    """uv built the venv with the image's own interpreter (no downloaded Python)."""
    run = start(
        engine,
        image,
        directories,
        "python",
        "-c",
        "import sys, amelia; print(sys.base_prefix, sys.version_info[:2], amelia.__file__)",
    )
    assert run.returncode == 0, run.log
    assert run.stdout.strip() == (
        "/usr (3, 11) /opt/amelia/.venv/lib/python3.11/site-packages/amelia/__init__.py"
    )


def test_no_build_tools_or_sources_are_left_in_the_image(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    """Only the venv came from the build stages: no uv, no sources, no compiler, no apt
    lists or downloaded packages, no copy of amelia's files outside the venv, and nothing in
    the venv that everyone may write (uv's lock file was)."""
    leftovers = (
        "/opt/uv /opt/amelia/src /opt/amelia/uv.lock /opt/amelia-package /opt/claude"
        " /usr/bin/gcc /root/.cache/uv"
    )
    script = (
        f"for p in {leftovers}; do [ -e $p ] && echo $p; done; "
        "ls /var/lib/apt/lists /var/cache/apt/archives | grep -E '_Packages|[.]deb$'; "
        "command -v uv; find /opt/amelia -perm -o+w ! -type l; true"
    )
    run = start(engine, image, directories, "/bin/sh", "-c", script)
    assert (run.returncode, run.stdout) == (0, ""), run.log


def test_git_accepts_the_runner_owned_workspace_and_the_file_commands_work(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    run = start(
        engine,
        image,
        directories,
        "/bin/sh",
        "-c",
        'git log --format=%s && touch "$HOME/written" && stat -c %u . '
        '&& echo "home=$HOME" >> "$GITHUB_OUTPUT" && echo "## ok" >> "$GITHUB_STEP_SUMMARY"'
        '&& printf "lines<<EOF_1\\nline one\\nline=two\\nEOF_1\\n" >> "$GITHUB_OUTPUT"'
        '&& echo "EXPORTED=yes" >> "$GITHUB_ENV"',
    )
    assert (run.returncode, run.stdout) == (0, "first\n1001\n"), run.log
    assert run.outputs == {"home": "/github/home", "lines": "line one\nline=two"}
    assert run.summary == "## ok\n"
    assert run.exported_env == {"EXPORTED": "yes"}
    assert run.home_files == ("written",)
    assert (directories.home / "written").exists()


def test_the_image_reaches_a_server_on_the_hosts_loopback(
    engine: Engine, image: str, directories: RunnerDirectories
) -> None:
    """The local stand-ins for GitHub and the model APIs on 127.0.0.1 are reachable."""
    received: list[str] = []

    class Recorder(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            received.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"pong")

        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        run = start(
            engine,
            image,
            directories,
            "python",
            "-c",
            "import os, urllib.request; print(urllib.request.urlopen("
            "os.environ['PROBE_URL'] + '/ping', timeout=10).read().decode())",
            env={"PROBE_URL": f"http://127.0.0.1:{server.server_address[1]}"},
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (run.returncode, run.stdout, received) == (0, "pong\n", ["/ping"]), run.log


def test_runs_args_from_action_yml_reach_the_entrypoint_with_inputs_filled_in(
    engine: Engine, image: str, directories: RunnerDirectories, tmp_path: Path
) -> None:
    """An action.yml with `runs.entrypoint` and `runs.args` (`${{ inputs.x }}`): the runner
    replaces the image's ENTRYPOINT and passes the evaluated args, empty ones included."""
    action = tmp_path / "action.yml"
    action.write_text(
        "name: probe\ninputs:\n  greeting:\n    default: hello\n  target:\n    default: ''\n"
        "runs:\n  using: docker\n  image: Dockerfile\n  entrypoint: /bin/sh\n"
        '  args:\n    - -c\n    - \'printf "%s|" "$0" "$@" "$INPUT_GREETING"\'\n'
        "    - ${{ inputs.greeting }}\n    - ${{ inputs.target }}\n"
    )
    runner = ContainerActionRunner(engine, image, action_yml=action)
    run = runner.run(directories, event_name="push", event={}, inputs={"greeting": "hi there"})
    assert (run.returncode, run.stdout) == (0, "hi there||hi there|"), run.log
