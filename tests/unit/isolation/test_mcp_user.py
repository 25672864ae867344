"""Who the MCP servers amelia starts run as: `amelia-mcp` when amelia is root, never root,
never the agents' user; amelia's own user when it is not root or `AMELIA_MCP_USER=none`."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.errors import AgentUserError, ConfigError
from amelia.isolation import mcp_user as mcp_user_module
from amelia.isolation.agent_user import AgentUser
from amelia.isolation.mcp_user import resolve_mcp_user
from tests.image_user import MCP_USER, ImageUser, dockerfile_user_commands

PASSWD = "root:x:0:0:root:/root:/bin/bash\n"
IMAGE = (
    "amelia-agent:x:10001:10001::/nonexistent:/usr/sbin/nologin\n"
    "amelia-mcp:x:10002:10002::/nonexistent:/usr/sbin/nologin\n"
)
AGENT = AgentUser(uid=10001, gid=10001, name="amelia-agent", setpriv="/usr/bin/setpriv")


def test_who_mcp_servers_run_as(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(mcp_user_module, "_warned", set())
    without, image = tmp_path / "without", tmp_path / "image"
    without.write_text(PASSWD)
    image.write_text(PASSWD + IMAGE)
    assert resolve_mcp_user("", agent=None, euid=1001, passwd=image) is None  # not root
    assert resolve_mcp_user("none", agent=AGENT, euid=0, passwd=image) is None
    found = resolve_mcp_user("", agent=AGENT, euid=0, passwd=image)
    assert found is not None and (found.uid, found.gid, found.name) == (10002, 10002, "amelia-mcp")
    assert found.command(["server"])[:6] == [
        found.setpriv,
        "--reuid",
        "10002",
        "--regid",
        "10002",
        "--clear-groups",
    ]
    numbers = resolve_mcp_user("40001:40002", agent=AGENT, euid=0, passwd=without)
    assert numbers is not None and (numbers.uid, numbers.gid) == (40001, 40002)
    with pytest.raises(AgentUserError, match=r"amelia-mcp does not exist.*AMELIA_MCP_USER=none"):
        resolve_mcp_user("", agent=AGENT, euid=0, passwd=without)
    for same in ("amelia-agent", "10001:40000", "40000:10001"):
        with pytest.raises(ConfigError, match="another user than the agents'"):
            resolve_mcp_user(same, agent=AGENT, euid=0, passwd=image)
    for root in ("root", "0:5", "5:0"):
        with pytest.raises(ConfigError, match="unprivileged user"):
            resolve_mcp_user(root, agent=AGENT, euid=0, passwd=image)
    with pytest.raises(ConfigError, match="must be a user name"):
        resolve_mcp_user("a:b", agent=AGENT, euid=0, passwd=image)


def test_the_dockerfile_makes_the_mcp_user_as_the_test_setup_does() -> None:
    made = [argv for argv in dockerfile_user_commands() if argv[-1] == MCP_USER]
    assert [argv[0] for argv in made] == ["groupadd", "useradd"]
    assert "10002" in made[0] and "10002" in made[1]


def test_the_test_setup_makes_the_images_mcp_user(
    mcp_image_user: ImageUser, image_user: ImageUser
) -> None:
    assert (mcp_image_user.name, mcp_image_user.uid, mcp_image_user.gid) == (MCP_USER, 10002, 10002)
    found = resolve_mcp_user("", agent=AGENT, euid=0)
    assert found is not None and found.uid == 10002 != image_user.uid
