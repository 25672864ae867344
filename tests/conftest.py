"""Fixtures every kind of test shares."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from loguru import logger

from amelia.cli import YOUNG_COLLECTION_THRESHOLD
from amelia.testing.sample_repo import create_sample_repo
from tests.image_user import MCP_USER, ImageUser, ensure_image_user, missing_reason

# As in an `amelia` process (`amelia.cli.main`): a pytest worker imports amelia, its SDKs and
# every test module, objects that live as long as the worker, and at Python's default of 700
# allocations the collector went over them again and again: collecting the suite took 9.5 s
# of CPU instead of 6.7 s. Set here, before the plugin below and the test modules load.
gc.set_threshold(YOUNG_COLLECTION_THRESHOLD)

pytest_plugins = ["amelia.testing.action", "pytester"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `slow` first, the rest in their order: with two workers, a test of 20
    seconds collected among the last ones keeps one worker busy while the other has
    nothing left to run. Each worker sorts its own collection the same way."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


def _to_current_stderr(message: str) -> None:
    sys.stderr.write(message)


_OURS: list[int] = []
"""The id of the sink `_loguru_to_the_stderr_of_the_moment` added last."""


def _loguru_handlers() -> list[int]:
    # loguru lists its handlers nowhere public.
    return list(logger._core.handlers)  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _loguru_to_the_stderr_of_the_moment() -> Iterator[None]:
    """After every test, loguru writes to whatever `sys.stderr` is when a record arrives.

    amelia's entry points point loguru at the `sys.stderr` of the moment they run
    (`amelia.action.engine._log_setup`, the local commands), which in a test is a capture stream
    (capsys, typer's CliRunner) closed when the test ends: a handler left on it makes every
    later record of the process a "I/O operation on closed file" traceback. The sink is
    replaced only when the test changed loguru's handlers: adding one builds an exception
    formatter that asks `sysconfig` for ~40 paths, ~5 ms, ~15 s of CPU over the suite."""
    yield
    if _OURS and _loguru_handlers() == _OURS:
        return
    logger.remove()
    logger.configure(patcher=lambda record: None)  # an entry point's redaction goes too
    _OURS[:] = [logger.add(_to_current_stderr, level="DEBUG")]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The sample project (a tiny Python package, two commits on `main`) as a git repo."""
    return create_sample_repo(tmp_path / "repo")


@pytest.fixture(scope="session")
def image_user() -> ImageUser:
    """The image's agent user, `amelia-agent` (uid and gid 10001), made on this machine by
    the Dockerfile's own commands when it lacks it (see `tests.image_user`); skipped where
    amelia cannot run as root."""
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    return ensure_image_user()


@pytest.fixture(scope="session")
def mcp_image_user(image_user: ImageUser) -> ImageUser:
    """The image's MCP server user, `amelia-mcp` (uid and gid 10002), made like
    `image_user`; skipped where amelia cannot run as root."""
    return ensure_image_user(MCP_USER)
