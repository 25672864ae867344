"""The user MCP servers run as: neither amelia's nor the agents'.

An MCP server started from a command holds what its `env` gave it (an API key, say) in its
environment and memory, and may write it into its files. Processes of one user can read
each other's `/proc/<pid>/environ` and files; so in the image (amelia as root) every such
server runs as `amelia-mcp` (`DEFAULT_MCP_USER`, uid and gid 10002, made by the Dockerfile)
through the same `setpriv` switch as the agents (`amelia.isolation.agent_user`), with a
fresh HOME only it may enter. The agents (`amelia-agent`, 10001) then cannot read the
server's environment, memory or files; they reach its tools only through amelia's gateway.

`AMELIA_MCP_USER` chooses the user: a name of the image's passwd file, `<uid>:<gid>`, or
`none` to run servers as amelia's own user. Not root (a local run): servers run as
amelia's user, said once, since only root can switch.
"""

from __future__ import annotations

import os
import pwd
import shutil
from pathlib import Path

from loguru import logger

from amelia.errors import AgentUserError, ConfigError
from amelia.isolation.agent_user import AgentUser

__all__ = ["DEFAULT_MCP_USER", "MCP_USER_VARIABLE", "NO_MCP_USER", "resolve_mcp_user"]

MCP_USER_VARIABLE = "AMELIA_MCP_USER"
DEFAULT_MCP_USER = "amelia-mcp"
"""The user the image creates for MCP servers (uid and gid 10002, no login, no groups)."""
NO_MCP_USER = "none"

_warned: set[str] = set()


def _once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        logger.warning(message)


def _by_name(name: str, passwd: Path | None) -> tuple[int, int] | None:
    if passwd is None:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            return None
        return entry.pw_uid, entry.pw_gid
    try:
        text = passwd.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ConfigError(f"cannot read the user database {passwd}: {error.strerror}") from None
    for line in text.splitlines():
        fields = line.split(":")
        if len(fields) >= 4 and fields[0] == name and fields[2].isdigit() and fields[3].isdigit():
            return int(fields[2]), int(fields[3])
    return None


def _lookup(value: str, passwd: Path | None) -> tuple[int, int, str]:
    uid_text, colon, gid_text = value.partition(":")
    if colon:
        if not (uid_text.isdigit() and gid_text.isdigit()):
            raise ConfigError(
                f"{MCP_USER_VARIABLE} must be a user name, <uid>:<gid> or {NO_MCP_USER}, "
                f"not {value!r}"
            )
        return int(uid_text), int(gid_text), f"uid {uid_text}"
    found = _by_name(value, passwd)
    if found is None:
        raise AgentUserError(
            f"the MCP server user {value} does not exist in this image, and amelia will not "
            "run MCP servers as root or as the agents' user (they could read the servers' "
            f"credentials); create it (see docs/container.md) or set {MCP_USER_VARIABLE}="
            f"{NO_MCP_USER} to run them as amelia's own user"
        )
    return found[0], found[1], value


def resolve_mcp_user(
    setting: str | None,
    *,
    agent: AgentUser | None,
    euid: int | None = None,
    passwd: Path | None = None,
) -> AgentUser | None:
    """The user MCP servers started from a command run as, or None: amelia's own.

    Raises `AgentUserError` for a user missing from the image or a missing setpriv,
    `ConfigError` for a malformed setting, uid/gid 0, or the agents' own uid or gid."""
    euid = os.geteuid() if euid is None else euid
    value = (setting or "").strip() or DEFAULT_MCP_USER
    if euid != 0:
        _once(
            f"amelia runs as uid {euid}, not root: MCP servers run as that same user, so the "
            "agents, which run as it too, could read their environment"
        )
        return None
    if value == NO_MCP_USER:
        _once(f"{MCP_USER_VARIABLE}={NO_MCP_USER}: MCP servers run as amelia's own user")
        return None
    uid, gid, name = _lookup(value, passwd)
    if uid == 0 or gid == 0:
        raise ConfigError(f"{MCP_USER_VARIABLE} must name an unprivileged user, not {value!r}")
    if agent is not None and (uid == agent.uid or gid == agent.gid):
        raise ConfigError(
            f"{MCP_USER_VARIABLE} must name another user than the agents' ({agent.name}): "
            "the agents could read the servers' environment and files"
        )
    setpriv = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if setpriv is None:
        raise AgentUserError(
            "setpriv (util-linux) is missing, so MCP servers cannot run as their own user; "
            f"install util-linux, or set {MCP_USER_VARIABLE}={NO_MCP_USER}"
        )
    return AgentUser(uid=uid, gid=gid, name=name, setpriv=setpriv)
