"""The Action's image under a real Docker Engine: what building it costs, what pulling the
published one costs, and how soon it talks to GitHub once `docker run` starts.

Needs root, Debian's docker.io (dockerd) and debootstrap; without them it measures
nothing and says so. Every engine it uses is a fresh one of its own
(`scripts/docker-engine start amelia-bench-<pid>…`, own data root), stopped and deleted at
the end, so "cold" means an empty build cache and no image, as on a GitHub runner; the
package registries may still answer from their own caches.

- `debian:bookworm-slim`: made from Debian's archive (the stand-in; a runner pulls it).
- cold build: `docker build` (BuildKit) of the repository's Dockerfile on that base, and
  each step's own time from BuildKit's plain log.
- warm build: the same again, nothing changed; then after a change of amelia's source.
- size: the image, each layer, and each layer gzip-compressed (what a registry stores and
  a runner downloads).
- pull: the image pushed to Debian's `docker-registry` on 127.0.0.1 and pulled by a second
  fresh engine (decompression and extraction, no network time), with what is downloaded.
- start-up: `/amelia plan` in the container, started as the runner starts it
  (tests/integration/container/runner.py), against the local GitHub and model servers:
  `docker run` → first GitHub request and → progress comment posted; next to the same run
  of `amelia action` outside the container (benchmarks/action.py).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import re
import shutil
import socket
import subprocess
import tarfile
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.integration.container.engine import REPO, Engine
from tests.integration.container.runner import RUNNER_UID, ContainerActionRunner
from tests.integration.container.scenarios import run_event

from amelia.testing.action_harness import ActionHarness
from benchmarks.action import StampedGitHubServer, plan_once
from benchmarks.bytecode import warm_cache
from benchmarks.report import Figure

ENGINE_SCRIPT = REPO / "scripts" / "docker-engine"
CONTEXT = ("Dockerfile", ".dockerignore", "pyproject.toml", "uv.lock", "README.md", "src")
BENCH = "image"
_STEP = re.compile(r"^(#\d+) \[([^\]]+)\] (.+)$", re.MULTILINE)
_DONE = re.compile(r"^(#\d+) DONE ([0-9.]+)s$", re.MULTILINE)


def unavailable() -> str | None:
    """Why the image cannot be measured here, or None."""
    if os.geteuid() != 0:
        return "needs root (it starts a dockerd of its own)"
    for program in ("dockerd", "debootstrap"):
        if shutil.which(program) is None:
            return f"{program} is not installed (apt-get install docker.io debootstrap)"
    return None


def _script(*args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(ENGINE_SCRIPT), *args],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"scripts/docker-engine {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


@contextmanager
def fresh_engine(name: str) -> Iterator[Engine]:
    """A dockerd with an empty data root, stopped and deleted afterwards."""
    host = _script("start", name)
    try:
        yield Engine(client=_script("client"), host=host)
    finally:
        _script("remove", name)


def _timed_build(engine: Engine, tag: str, context: Path) -> tuple[float, str]:
    started = time.monotonic()
    built = engine.build_log(tag, context, check=True)
    return time.monotonic() - started, built.stderr


def step_times(log: str) -> dict[str, float]:
    """Each build step's own time from BuildKit's plain log, by its instruction."""
    names = {
        number: f"[{where}] {' '.join(text.split())}" for number, where, text in _STEP.findall(log)
    }
    return {
        names[n]: float(t)
        for n, t in _DONE.findall(log)
        if n in names and not names[n].startswith("[internal]")
    }


def layer_sizes(engine: Engine, image: str) -> list[tuple[str, int]]:
    """(instruction, bytes) of each layer that holds files, oldest first."""
    rows = engine.run(
        "history", "--no-trunc", "--human=false", "--format", "{{.Size}}\t{{.CreatedBy}}", image
    ).stdout.splitlines()
    layers = [(created, int(size)) for size, created in (row.split("\t", 1) for row in rows)]
    return [(created, size) for created, size in reversed(layers) if size > 0]


def compressed_sizes(engine: Engine, image: str, scratch: Path) -> list[int]:
    """Each layer's size gzip-compressed (level 6, as registries store them), oldest first."""
    archive = scratch / "image.tar"
    engine.run("save", "-o", str(archive), image, timeout=600)
    sizes: list[int] = []
    with tarfile.open(archive) as saved:
        manifest = json.load(saved.extractfile("manifest.json"))  # type: ignore[arg-type]
        for layer in manifest[0]["Layers"]:
            source = saved.extractfile(layer)
            assert source is not None
            counter = _Counter()
            with gzip.GzipFile(fileobj=counter, mode="wb", compresslevel=6) as packed:
                shutil.copyfileobj(source, packed, 1 << 20)
            sizes.append(counter.size)
    archive.unlink()
    return sizes


class _Counter:
    """A write-only file that only counts."""

    def __init__(self) -> None:
        self.size = 0

    def write(self, data: bytes) -> int:
        self.size += len(data)
        return len(data)

    def flush(self) -> None:
        return None


def registry_program(scratch: Path) -> str | None:
    """Debian's docker-registry: installed, or fetched with `apt-get download` and unpacked
    here (installing it would start a service)."""
    found = shutil.which("docker-registry")
    if found is not None:
        return found
    if shutil.which("apt-get") is None:
        return None
    downloads = scratch / "registry-deb"
    downloads.mkdir()
    fetched = subprocess.run(
        ["apt-get", "download", "docker-registry"],
        cwd=downloads,
        capture_output=True,
        timeout=300,
        check=False,
    )
    debs = list(downloads.glob("docker-registry_*.deb"))
    if fetched.returncode != 0 or not debs:
        return None
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(downloads / "root")], check=True)
    program = downloads / "root" / "usr" / "bin" / "docker-registry"
    return str(program) if program.is_file() else None


@contextmanager
def local_registry(program: str, scratch: Path) -> Iterator[str]:
    """A registry on 127.0.0.1 (Docker treats it as insecure, so plain HTTP): its host:port."""
    with contextlib.closing(socket.socket()) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = scratch / "registry.yml"
    config.write_text(
        "version: 0.1\nlog:\n  level: error\n"
        f"storage:\n  filesystem:\n    rootdirectory: {scratch / 'registry-data'}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
    )
    process = subprocess.Popen(
        [program, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        address = f"127.0.0.1:{port}"
        for _ in range(100):
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"http://{address}/v2/", timeout=1).close()
                break
            time.sleep(0.1)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=30)


def startup_in_container(runner: ContainerActionRunner, root: Path) -> tuple[float, float]:
    """`docker run` → (first GitHub request, progress comment posted), in seconds, for one
    `/amelia plan`."""
    harness = ActionHarness(root)
    server = StampedGitHubServer()
    harness.github = server
    with harness:
        number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
        harness.chown_workspace(RUNNER_UID, RUNNER_UID)
        before = len(server.stamped)
        started = time.monotonic()
        run = run_event(
            runner, harness, "issue_comment", harness.comment_event(number, "/amelia plan")
        )
        requests = list(server.stamped)[before:]
        arrived = server.stamped.arrived[before:]
    if run.returncode != 0 or run.outputs.get("conclusion") != "success":
        raise RuntimeError(f"plan in the container exited {run.returncode}: {run.log[-600:]}")
    posts = [
        at
        for request, at in zip(requests, arrived, strict=True)
        if request.method == "POST"
        and re.fullmatch(r"/repos/[^/]+/[^/]+/issues/\d+/comments", request.path)
    ]
    return arrived[0] - started, posts[0] - started


def image_benchmark(root: Path, repetitions: int) -> list[Figure]:
    """Every figure of the module docstring, from fresh engines of its own."""
    name = f"amelia-bench-{os.getpid()}"
    figures: list[Figure] = []

    def figure(what: str, value: float, unit: str, note: str = "") -> None:
        figures.append(Figure(benchmark=BENCH, name=what, value=value, unit=unit, note=note))

    with fresh_engine(name) as engine:
        started = time.monotonic()
        engine.ensure_base_image()
        figure(
            "debian:bookworm-slim made from Debian's archive (debootstrap + import)",
            time.monotonic() - started,
            "s",
        )

        context = root / "context"
        context.mkdir()
        for part in CONTEXT:
            source = REPO / part
            if source.is_dir():
                shutil.copytree(
                    source, context / part, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                shutil.copy2(source, context / part)
        cold, log = _timed_build(engine, "amelia:bench", context)
        figure("cold build (empty build cache, BuildKit)", cold, "s")
        for step, seconds in step_times(log).items():
            if seconds >= 0.5:
                figure(f"cold build step {step[:110]}", seconds, "s")
        warm, _ = _timed_build(engine, "amelia:bench", context)
        figure("warm build (nothing changed)", warm, "s")
        init = context / "src" / "amelia" / "__init__.py"
        init.write_text(init.read_text() + f"\n# {uuid.uuid4()}\n")
        changed, _ = _timed_build(engine, "amelia:bench", context)
        figure("warm build after a change of amelia's source", changed, "s")

        size = int(engine.run("image", "inspect", "--format", "{{.Size}}", "amelia:bench").stdout)
        figure("image size", size / 1e6, "MB")
        layers = layer_sizes(engine, "amelia:bench")
        packed = compressed_sizes(engine, "amelia:bench", root)
        for (created, layer_size), compressed in zip(layers, packed, strict=True):
            what = re.sub(r"^/bin/sh -c |^RUN \|\d+ [^ ]+ /bin/sh -c ", "", created)[:80]
            figure(
                f"layer {what or '(base)'}",
                layer_size / 1e6,
                "MB",
                f"{compressed / 1e6:.1f} MB compressed",
            )
        figure("compressed, all layers (what a pull downloads)", sum(packed) / 1e6, "MB")

        program = registry_program(root)
        if program is not None:
            with local_registry(program, root) as address:
                remote = f"{address}/amelia:bench"
                engine.run("tag", "amelia:bench", remote)
                started = time.monotonic()
                engine.run("push", remote, timeout=900)
                figure("docker push to a registry on 127.0.0.1", time.monotonic() - started, "s")
                with fresh_engine(f"{name}-pull") as puller:
                    started = time.monotonic()
                    puller.run("pull", remote, timeout=900)
                    figure(
                        "docker pull by a fresh engine from a registry on 127.0.0.1",
                        time.monotonic() - started,
                        "s",
                        "decompression and extraction, no network time",
                    )

        runner = ContainerActionRunner(engine, engine.image_id("amelia:bench"))
        startup_in_container(runner, root / "container-warm-up")
        runs = [startup_in_container(runner, root / f"container-{n}") for n in range(repetitions)]
        warm_cache()
        plan_once(root / "outside-warm-up")
        outside = [plan_once(root / f"outside-{n}") for n in range(repetitions)]
    first = "(/amelia plan) → first GitHub request"
    progress = "(/amelia plan) → progress comment posted"
    figures += [
        Figure.median_of(BENCH, f"`docker run` {first}", [r[0] for r in runs], "s"),
        Figure.median_of(
            BENCH,
            f"`amelia action` outside the container {first}",
            [r.first_request_seconds for r in outside],
            "s",
        ),
        Figure.median_of(BENCH, f"`docker run` {progress}", [r[1] for r in runs], "s"),
        Figure.median_of(
            BENCH,
            f"`amelia action` outside the container {progress}",
            [r.progress_post_seconds for r in outside],
            "s",
        ),
    ]
    return figures
