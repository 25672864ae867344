"""Building the Action's image with Docker: what reaches the build, what its cache keeps,
and how a broken step fails."""

from __future__ import annotations

import json
import re
import shutil
import uuid
from pathlib import Path

import pytest

from tests.integration.container.engine import REPO, Engine

pytestmark = [pytest.mark.container, pytest.mark.timeout(1500)]

CONTEXT = ("Dockerfile", ".dockerignore", "pyproject.toml", "uv.lock", "README.md", "src")


def _step_states(log: str) -> dict[str, str]:
    """Each step's instruction and how it ended in BuildKit's plain log (DONE or CACHED)."""
    names = dict(re.findall(r"^(#\d+) \[[^\]]+\] (.+)$", log, flags=re.MULTILINE))
    states: dict[str, str] = {}
    for number, state in re.findall(r"^(#\d+) (DONE|CACHED)\b", log, flags=re.MULTILINE):
        if number in names:
            states[" ".join(names[number].split())] = state
    return states


def test_only_what_the_dockerfile_copies_reaches_the_build(engine: Engine, tmp_path: Path) -> None:
    """.dockerignore lets in pyproject.toml, uv.lock, README.md and src/ without bytecode,
    whatever else the checkout holds (.git, .venv, tests, caches)."""
    (REPO / "src" / "amelia" / "__pycache__").mkdir(exist_ok=True)
    probe = tmp_path / "Dockerfile"
    probe.write_text(
        "FROM debian:bookworm-slim\nCOPY . /context/\n"
        "RUN cd /context && find . -mindepth 1 -maxdepth 1 | sort > /listing"
        " && find . -name '__pycache__' -o -name '*.pyc' >> /listing\n"
    )
    tag = f"amelia:test-context-{tmp_path.name.lower()}"
    engine.build(tag, REPO, dockerfile=probe)
    try:
        listing = engine.run("run", "--rm", "--network", "host", tag, "cat", "/listing").stdout
    finally:
        engine.run("rmi", tag, check=False)
    assert listing.split() == ["./README.md", "./pyproject.toml", "./src", "./uv.lock"]


def test_a_source_change_rebuilds_amelia_and_reuses_the_dependency_layers(
    engine: Engine, image: str, tmp_path: Path
) -> None:
    context = tmp_path / "context"
    context.mkdir()
    for name in CONTEXT:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, context / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, context / name)
    init = context / "src" / "amelia" / "__init__.py"
    # A change no earlier build saw, so no cache holds its layers.
    init.write_text(init.read_text() + f"\n# a change of amelia's own source: {uuid.uuid4()}\n")
    tag = f"amelia:test-source-change-{tmp_path.name.lower()}"

    built = engine.build_log(tag, context)

    engine.run("rmi", tag, check=False)
    assert built.returncode == 0, built.stderr[-3000:]
    states = _step_states(built.stderr)
    (dependencies,) = [step for step in states if "--no-install-project" in step]
    (package,) = [step for step in states if "--no-editable" in step]
    apt = [step for step in states if step.startswith("RUN apt-get update")]
    assert states[dependencies] == "CACHED", states
    # Neither the Claude Code binary's layer (half the image) nor the dependencies' layer of
    # the venv is written again: only amelia's own files, a layer of their own above them.
    binary = "COPY --from=dependencies /opt/claude/claude "
    (claude,) = [step for step in states if step.startswith(binary)]
    assert states[claude] == "CACHED", states
    assert states["COPY --from=dependencies /opt/amelia/.venv /opt/amelia/.venv"] == "CACHED"
    assert states["COPY --from=builder /opt/amelia-package/ /opt/amelia/.venv/"] == "DONE"
    assert len(apt) == 2 and {states[step] for step in apt} == {"CACHED"}, states
    assert states["COPY src ./src"] == "DONE" and states[package] == "DONE", states
    # Every stage starts from Debian's slim image (stood in for here, pulled on GitHub; the
    # builder from the dependencies stage): BuildKit loads it once for all, and the image's
    # first layer is the base's.
    bases = re.findall(r"^#\d+ \[\S+ 1/\d+\] FROM (\S+)$", built.stderr, flags=re.MULTILINE)
    assert set(bases) == {"docker.io/library/debian:bookworm-slim"}
    layers = "{{json .RootFS.Layers}}"
    base = json.loads(engine.run("image", "inspect", "-f", layers, "debian:bookworm-slim").stdout)
    assert json.loads(engine.run("image", "inspect", "-f", layers, image).stdout)[0] == base[0]


@pytest.mark.parametrize(
    ("step", "files", "says"),
    [
        # apt works in the build (through the stand-in's registry settings here, the real
        # image's on GitHub) and says what it could not find.
        (
            "RUN apt-get update && apt-get install -y --no-install-recommends python3-venvv",
            {},
            "Unable to locate package python3-venvv",
        ),
        # A file .dockerignore keeps out of the context cannot be copied.
        (
            "COPY secret.env /secret.env",
            {".dockerignore": "*.env\n", "secret.env": "x"},
            "not found",
        ),
    ],
)
def test_a_failing_step_fails_the_build_naming_it(
    engine: Engine, tmp_path: Path, step: str, files: dict[str, str], says: str
) -> None:
    for name, content in files.items():
        (tmp_path / name).write_text(content)
    (tmp_path / "Dockerfile").write_text(f"FROM debian:bookworm-slim\n{step}\n")
    built = engine.build_log(f"amelia:test-broken-{tmp_path.name.lower()}", tmp_path)
    assert built.returncode != 0
    assert says in built.stderr
    assert f"[2/2] {step}" in built.stderr
