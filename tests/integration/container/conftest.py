"""Fixtures for rehearsing small Dockerfiles on the shared, cached debootstrap base."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from scripts.image_rehearsal.base_image import default_cache_dir, ensure_base
from scripts.image_rehearsal.builder import RehearsalResult, RehearsalSettings, rehearse
from scripts.image_rehearsal.mounts import mount_points_under, remove_tree

REPO = Path(__file__).resolve().parents[3]

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
