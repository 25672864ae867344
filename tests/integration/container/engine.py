"""The Docker Engine the container tests use, and the Action's image built by it.

The engine is the one `DOCKER_HOST` names (`scripts/docker-engine start NAME` starts one
of our own and prints it; `.ci/run` does that), else the default socket. Its client is
`$DOCKER`, else the first `docker` that builds with BuildKit (Debian's docker.io 20.10
holds BuildKit's client itself, later clients need buildx). Without an engine the container tests
are skipped, unless `AMELIA_CONTAINER_TESTS=required` (as `.ci/run` sets it) makes that a
failure.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[3]
DOCKER_ENGINE_SCRIPT = REPO / "scripts" / "docker-engine"
REQUIRED_VARIABLE = "AMELIA_CONTAINER_TESTS"
IMAGE_VARIABLE = "AMELIA_IMAGE"
"""A tag of the Action's image already built from this checkout (`.ci/run` builds it)."""
DEFAULT_SOCKET = "/var/run/docker.sock"


class EngineUnavailableError(RuntimeError):
    """No engine answers: the tests skip (or fail, when required) with this message."""


@dataclass(frozen=True)
class Engine:
    """A docker client and the daemon it talks to."""

    client: str
    host: str

    @property
    def socket(self) -> Path:
        """The daemon's socket on this machine: what the runner mounts at
        /var/run/docker.sock (there, the host's own daemon socket)."""
        return Path(urlsplit(self.host).path)

    def environment(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """What the client runs with: PATH, this engine and BuildKit."""
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "DOCKER_HOST": self.host,
            "DOCKER_BUILDKIT": "1",
            "HOME": os.environ.get("HOME", "/root"),
        }
        env.update(extra or {})
        return env

    def run(
        self,
        *args: str,
        check: bool = True,
        timeout: float = 120,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`docker ARGS` against this engine; a failure with `check` names the command."""
        result = subprocess.run(
            [self.client, *args],
            env=self.environment(env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"docker {' '.join(args[:3])} failed ({result.returncode}): "
                f"{(result.stderr or result.stdout).strip()[-2000:]}"
            )
        return result

    def build(
        self,
        tag: str,
        context: Path,
        *,
        dockerfile: Path | None = None,
        timeout: float = 1500,
    ) -> str:
        """`docker build --network host` (BuildKit); returns the image's id."""
        self.build_log(tag, context, dockerfile=dockerfile, timeout=timeout, check=True)
        return self.image_id(tag)

    def build_log(
        self,
        tag: str,
        context: Path,
        *,
        dockerfile: Path | None = None,
        timeout: float = 1500,
        check: bool = False,
    ) -> subprocess.CompletedProcess[str]:
        """The build's exit code and BuildKit's plain log (one line per step and state)."""
        args = ["build", "--network", "host", "--progress", "plain", "-t", tag]
        if dockerfile is not None:
            args += ["-f", str(dockerfile)]
        return self.run(*args, str(context), timeout=timeout, check=check)

    def image_id(self, reference: str) -> str:
        return self.run("image", "inspect", "--format", "{{.Id}}", reference).stdout.strip()

    def containers(self, *filters: str) -> list[str]:
        """Names of every container, running or not, that matches all `filters`."""
        args = ["ps", "--all", "--format", "{{.Names}}"]
        for item in filters:
            args += ["--filter", item]
        return self.run(*args).stdout.split()

    def ensure_base_image(self) -> None:
        """Make the local `debian:bookworm-slim` stand-in if the engine has none."""
        result = subprocess.run(
            [str(DOCKER_ENGINE_SCRIPT), "stand-in"],
            env={**os.environ, **self.environment({"DOCKER": self.client})},
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        if result.returncode != 0:
            raise RuntimeError(f"scripts/docker-engine stand-in failed: {result.stderr.strip()}")


def docker_client() -> str | None:
    """The client `scripts/docker-engine client` chooses: `$DOCKER`, else the first docker
    that builds with BuildKit; None when there is none."""
    result = subprocess.run(
        [str(DOCKER_ENGINE_SCRIPT), "client"], capture_output=True, text=True, check=False
    )
    return result.stdout.strip() or None if result.returncode == 0 else None


def find_engine() -> Engine:
    """The engine to test with, or EngineUnavailableError saying why there is none."""
    client = docker_client()
    if client is None:
        raise EngineUnavailableError(
            "no docker client that builds with BuildKit (apt-get install docker.io)"
        )
    host = os.environ.get("DOCKER_HOST") or f"unix://{DEFAULT_SOCKET}"
    if not host.startswith("unix://"):
        raise EngineUnavailableError(f"DOCKER_HOST={host} is not a unix socket")
    engine = Engine(client=client, host=host)
    if not engine.socket.exists():
        raise EngineUnavailableError(
            f"no Docker Engine at {host} (start one: scripts/docker-engine start NAME)"
        )
    try:
        engine.run("version", "--format", "{{.Server.Version}}", timeout=30)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        raise EngineUnavailableError(
            f"the Docker Engine at {host} does not answer: {error}"
        ) from None
    return engine


def engine_required() -> bool:
    return os.environ.get(REQUIRED_VARIABLE, "") == "required"


def action_image(engine: Engine, *, tag: str = "amelia:test") -> str:
    """The Action's image of this checkout: `$AMELIA_IMAGE` when set (already built),
    else built now from the repository's Dockerfile (BuildKit's cache makes a rebuild of
    unchanged sources take seconds). Returns its id."""
    given = os.environ.get(IMAGE_VARIABLE)
    if given:
        return engine.image_id(given)
    engine.ensure_base_image()
    return engine.build(tag, REPO)
