"""The Action's real image, rehearsed with the layer cache and started like GitHub starts it."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from scripts.image_rehearsal.builder import RehearsalResult
from scripts.image_rehearsal.entrypoint import EntrypointRun, run_entrypoint

from amelia import __version__
from tests.git_helpers import init_repo
from tests.integration.container.conftest import requires_rehearsal

pytestmark = [requires_rehearsal, pytest.mark.e2e, pytest.mark.timeout(1200)]


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return init_repo(tmp_path / "checkout", message="first")


def _start(image: RehearsalResult, checkout: Path, *command: str) -> EntrypointRun:
    return run_entrypoint(
        image.root,
        {"INPUT_GITHUB_TOKEN": "not-a-real-token", "GITHUB_REPOSITORY": "octo/repo"},
        checkout,
        {"action": "created", "comment": {"body": "/amelia help"}},
        command=command,
        image_env=image.config.env,
    )


def test_the_image_runs_amelia_action(product_image: RehearsalResult) -> None:
    assert product_image.config.entrypoint == ("amelia", "action")
    assert 200 < product_image.size_mb < 2000


def test_amelia_starts_inside_the_image(product_image: RehearsalResult, checkout: Path) -> None:
    version = _start(product_image, checkout, "amelia", "version")
    assert (version.returncode, version.stdout.strip()) == (0, __version__)
    helped = _start(product_image, checkout, "amelia", "--help")
    assert helped.returncode == 0
    assert "Turn an issue into a reviewed change" in helped.stdout


def test_the_image_holds_what_a_projects_setup_needs_to_start(
    product_image: RehearsalResult, checkout: Path
) -> None:
    # The PATH the setup gets: amelia's own virtual environment is not the project's Python.
    system = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    script = (
        f"export PATH={system} VIRTUAL_ENV=; pip --version && python3 -m venv /tmp/project"
        " && /tmp/project/bin/python -m pip --version && curl --version && xz --version"
    )
    run = _start(product_image, checkout, "bash", "-c", script)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "python 3.11" in run.stdout and "curl " in run.stdout and "xz (XZ Utils)" in run.stdout


def test_the_agent_user_and_setpriv_are_in_the_image(
    product_image: RehearsalResult, checkout: Path
) -> None:
    """The user every agent process runs as: uid and gid 10001, no login, no other group."""
    passwd = (product_image.root / "etc/passwd").read_text().splitlines()
    assert "amelia-agent:x:10001:10001::/nonexistent:/usr/sbin/nologin" in passwd
    assert "amelia-agent:x:10001:" in (product_image.root / "etc/group").read_text().splitlines()
    run = _start(
        product_image,
        checkout,
        "setpriv",
        "--reuid=amelia-agent",
        "--regid=amelia-agent",
        "--clear-groups",
        "--no-new-privs",
        "--",
        "grep",
        "-E",
        "^(Uid|Gid|Groups|NoNewPrivs):",
        "/proc/self/status",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == [
        *("Uid:", "10001", "10001", "10001", "10001"),
        *("Gid:", "10001", "10001", "10001", "10001"),
        "Groups:",
        *("NoNewPrivs:", "1"),
    ]


def test_the_venv_runs_on_debians_python(product_image: RehearsalResult, checkout: Path) -> None:
    run = _start(
        product_image,
        checkout,
        "python",
        "-c",
        "import sys, amelia; print(sys.base_prefix, sys.version_info[:2], amelia.__file__)",
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == (
        "/usr (3, 11) /opt/amelia/.venv/lib/python3.11/site-packages/amelia/__init__.py"
    )


def test_no_build_tools_are_left_in_the_image(product_image: RehearsalResult) -> None:
    root = product_image.root
    leftovers = ["opt/uv", "opt/amelia/src", "usr/bin/gcc", "root/.cache/uv"]
    assert [path for path in leftovers if (root / path).exists()] == []
    assert list((root / "var/lib/apt/lists").glob("*_Packages*")) == []


def test_git_accepts_the_runner_owned_workspace(
    product_image: RehearsalResult, checkout: Path
) -> None:
    run = _start(
        product_image,
        checkout,
        "/bin/sh",
        "-c",
        'git log --format=%s && touch "$HOME/written" && stat -c %u . '
        '&& echo "home=$HOME" >> "$GITHUB_OUTPUT" && echo "## ok" >> "$GITHUB_STEP_SUMMARY"',
    )
    assert (run.returncode, run.stdout) == (0, "first\n1001\n"), run.stderr
    assert run.outputs == {"home": "/github/home"}
    assert run.step_summary == "## ok\n"


def test_the_image_reaches_a_server_on_the_hosts_loopback(
    product_image: RehearsalResult, checkout: Path
) -> None:
    """Local stand-ins for GitHub and model APIs on 127.0.0.1 are reachable from inside."""
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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        run = run_entrypoint(
            product_image.root,
            {"GITHUB_API_URL": f"http://127.0.0.1:{server.server_address[1]}"},
            checkout,
            {},
            command=(
                "python",
                "-c",
                "import os, urllib.request; print(urllib.request.urlopen("
                "os.environ['GITHUB_API_URL'] + '/ping', timeout=10).read().decode())",
            ),
            image_env=product_image.config.env,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert (run.returncode, run.stdout, received) == (0, "pong\n", ["/ping"]), run.stderr
