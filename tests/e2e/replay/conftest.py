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


def _image_agent_user() -> Iterator[AgentUser]:
    ensure_image_user()
    base = Path(tempfile.mkdtemp(prefix="amelia-replay-"))
    base.chmod(0o755)
    yield AgentUser(IMAGE_USER, base)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(params=["none", IMAGE_USER])
def agent_user(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[AgentUser]:
    """Each of the two, for what the agents' user changes (a replay hands its checkout to
    the agent user, and chooses it over the recorded one)."""
    if request.param == "none":
        yield AgentUser("none", tmp_path)
        return
    reason = missing_reason()
    if reason is not None:
        pytest.skip(reason)
    yield from _image_agent_user()


@pytest.fixture
def one_agent_user(tmp_path: Path) -> Iterator[AgentUser]:
    """The image's agent user where this machine can run agents as it (as root, like the
    Action's image and `.ci/run`), else amelia's own: for what the agents' user does not
    change. What a recording holds is written by amelia's own process (the credential
    proxy's observer, the GitHub calls, a pack of the checkout's commits), whoever the
    agents run as, so a second run with the other user repeats the same code path."""
    if missing_reason() is not None:
        yield AgentUser("none", tmp_path)
        return
    yield from _image_agent_user()
