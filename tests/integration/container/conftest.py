"""Fixtures of the container tests: the Docker Engine, the Action's image built by it, and
(until it goes) the rehearsal's cached debootstrap base."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from scripts.image_rehearsal.base_image import default_cache_dir, ensure_base
from scripts.image_rehearsal.builder import RehearsalResult, RehearsalSettings, rehearse
from scripts.image_rehearsal.mounts import mount_points_under, remove_tree

from tests.integration.container.engine import (
    Engine,
    EngineUnavailableError,
    action_image,
    engine_required,
    find_engine,
)
from tests.integration.container.runner import ContainerActionRunner

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def engine() -> Engine:
    """The Docker Engine of `DOCKER_HOST`: skipped without one, unless required."""
    try:
        return find_engine()
    except EngineUnavailableError as error:
        if engine_required():
            pytest.fail(f"the container tests need a Docker Engine: {error}")
        pytest.skip(str(error))


@pytest.fixture(scope="session")
def image(engine: Engine) -> str:
    """The id of the Action's image built from this checkout's Dockerfile."""
    return action_image(engine)


@pytest.fixture(scope="session")
def runner(engine: Engine, image: str) -> ContainerActionRunner:
    """Starts the image as the runner starts amelia's action (runs: of action.yml)."""
    return ContainerActionRunner(engine, image)


RehearseSmall = Callable[..., RehearsalResult]


def _rehearsal_unavailable() -> str | None:
    if os.geteuid() != 0:
        return "the rehearsal needs root (debootstrap, chroot, mount)"
    if shutil.which("debootstrap") is None:
        return "debootstrap is not installed (apt-get install -y debootstrap)"
    return None


requires_rehearsal = pytest.mark.skipif(
    _rehearsal_unavailable() is not None, reason=_rehearsal_unavailable() or ""
)


@pytest.fixture(scope="session")
def rehearsal_cache() -> Path:
    """The machine's rehearsal cache: its debootstrapped base is made once and shared."""
    cache = default_cache_dir()
    ensure_base(cache)
    return cache


@pytest.fixture(scope="module")
def product_image(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RehearsalResult]:
    """The Action's real image, rehearsed with the machine's layer cache (one per module)."""
    work_dir = tmp_path_factory.mktemp("product-image")
    yield rehearse(
        RehearsalSettings(
            dockerfile=REPO / "Dockerfile",
            context=REPO,
            work_dir=work_dir,
            cache_dir=default_cache_dir(),
        ),
        log=lambda _line: None,
    )
    remove_tree(work_dir)


@pytest.fixture
def work_dir(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "work"
    directory.mkdir()
    yield directory
    remove_tree(directory)
    assert mount_points_under(tmp_path) == []


@pytest.fixture
def rehearse_small(rehearsal_cache: Path, tmp_path: Path, work_dir: Path) -> RehearseSmall:
    """Rehearse a Dockerfile written into a fresh context, without the layer cache."""

    def run(dockerfile: str, files: dict[str, str] | None = None) -> RehearsalResult:
        context = tmp_path / "context"
        context.mkdir(exist_ok=True)
        for name, content in (files or {}).items():
            (context / name).parent.mkdir(parents=True, exist_ok=True)
            (context / name).write_text(content)
        (context / "Dockerfile").write_text(dockerfile)
        return rehearse(
            RehearsalSettings(
                dockerfile=context / "Dockerfile",
                context=context,
                work_dir=work_dir,
                cache_dir=rehearsal_cache,
                layer_cache=False,
            ),
            log=lambda _line: None,
        )

    return run
