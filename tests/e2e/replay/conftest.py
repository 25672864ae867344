"""The agents' user for the recording tests: amelia's own (`none`) or, as root, the image's
`amelia-agent`, with a directory every uid may enter (pytest's temporary root is root's
alone, as a runner's workspace is not)."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.image_user import IMAGE_USER, ensure_image_user, missing_reason


@dataclass(frozen=True)
class AgentUser:
    """`AMELIA_AGENT_USER` for the harness and a directory to put its root in."""

    name: str
    base: Path


@pytest.fixture(params=["none", IMAGE_USER])
def agent_user(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AgentUser]:
    if request.param == "none":
        yield AgentUser("none", tmp_path)
        return
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    ensure_image_user()
    base = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
    base.chmod(0o755)
    yield AgentUser(IMAGE_USER, base)
    shutil.rmtree(base, ignore_errors=True)
