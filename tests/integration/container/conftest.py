"""Fixtures of the container tests: the Docker Engine, the Action's image built by it, and
the runner that starts the image as GitHub's runner starts amelia's action."""

from __future__ import annotations

import pytest

from tests.integration.container.engine import (
    Engine,
    EngineUnavailableError,
    action_image,
    engine_required,
    find_engine,
)
from tests.integration.container.runner import ContainerActionRunner


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
