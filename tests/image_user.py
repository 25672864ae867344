"""The image's users on this machine, made by the Dockerfile's own commands.

The Action's image runs every agent process as `amelia-agent` (uid and gid 10001) and the
MCP servers amelia starts as `amelia-mcp` (10002); tests of what those users change (the
checkout the agent must reach, amelia's git on a checkout another uid owns, its HOME, two
runs sharing it, a server's secrets out of the agent's reach) need the same users here.
`ensure_image_user(name)` runs the `groupadd` and `useradd` of the Dockerfile's final
stage for that user, as written there, when the machine lacks it, and leaves it in place
afterwards (it is what the image has, and a local install of amelia as root makes it too).
Tests that must not depend on whether the machine has it resolve users against a passwd
file of their own instead.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCKERFILE = REPO / "Dockerfile"
IMAGE_USER = "amelia-agent"
MCP_USER = "amelia-mcp"
_LOCK = Path("/tmp/amelia-image-user.lock")
"""One lock for every test process of the machine."""


@dataclass(frozen=True)
class ImageUser:
    name: str
    uid: int
    gid: int


def _instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (keyword, arguments), continuation lines joined and
    comments dropped, as Docker reads them (no parser directive or heredoc is used here)."""
    found: list[tuple[str, str]] = []
    pending = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, arguments = (pending + line).partition(" ")
        found.append((keyword.upper(), arguments.strip()))
        pending = ""
    return found


def dockerfile_user_commands() -> list[list[str]]:
    """The `groupadd` and `useradd` command lines of the final stage's RUN that makes the
    image's users, each as an argv."""
    instructions = _instructions(DOCKERFILE.read_text(encoding="utf-8"))
    last_from = max(i for i, (keyword, _) in enumerate(instructions) if keyword == "FROM")
    for keyword, arguments in instructions[last_from:]:
        if keyword == "RUN" and "useradd" in arguments:
            commands = [shlex.split(part) for part in arguments.split("&&")]
            return [argv for argv in commands if argv and argv[0] in ("groupadd", "useradd")]
    raise AssertionError("the Dockerfile's final stage makes no user")


def missing_reason() -> str | None:
    """Why the image's user cannot be made here (None: it can, or it exists)."""
    if os.geteuid() != 0:
        return "only root can make the image's agent user and switch to it"
    if shutil.which("useradd") is None or shutil.which("setpriv") is None:
        return "useradd and setpriv (util-linux) are needed"
    return None


def ensure_image_user(name: str = IMAGE_USER) -> ImageUser:
    """The image's user `name` (the agents' by default), made as the Dockerfile makes it
    unless it exists (several test processes may ask at once: one makes it)."""
    with _LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            commands = [argv for argv in dockerfile_user_commands() if argv[-1] == name]
            if not commands:
                raise AssertionError(f"the Dockerfile makes no user {name}") from None
            for argv in commands:
                subprocess.run(argv, check=True, capture_output=True)
            entry = pwd.getpwnam(name)
    return ImageUser(name=entry.pw_name, uid=entry.pw_uid, gid=entry.pw_gid)
