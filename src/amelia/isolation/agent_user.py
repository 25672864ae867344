"""Every agent process runs under an unprivileged user of the image: the only way amelia
drops privileges.

In the Action's container amelia runs as root, and the runner mounts
`/var/run/docker.sock` into it: root could ask Docker for the container's recorded
environment (every input, the token, the model keys) or start a privileged container. So
the Claude Code CLI and its tools, the API driver's shell commands and the project's test
command run as `amelia-agent` (`DEFAULT_AGENT_USER`, made by the Dockerfile) through
`setpriv --reuid U --regid G --clear-groups --no-new-privs`: uid and gid both switch, no
supplementary group (root's, or the socket's) survives, and no setuid program can give
root back. Only root can switch; the decision is `resolve_agent_user`.

`AMELIA_AGENT_USER` chooses the user: a name of the image's passwd file, `<uid>:<gid>`
(numbers; no passwd entry needed), or `none` to run agents as amelia's own user
(documented in SECURITY.md: it leaves the socket open to them).
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from loguru import logger

from amelia.errors import AgentUserError, ConfigError
from amelia.isolation.leftovers import descendants, stop_processes

__all__ = [
    "AGENT_STOP_REASON",
    "AGENT_USER_VARIABLE",
    "DEFAULT_AGENT_USER",
    "NO_AGENT_USER",
    "AgentUser",
    "agent_home",
    "launcher",
    "resolve_agent_user",
]

AGENT_USER_VARIABLE = "AMELIA_AGENT_USER"
DEFAULT_AGENT_USER = "amelia-agent"
"""The user the image creates for the agents (uid and gid 10001, no login, no groups)."""
NO_AGENT_USER = "none"
"""`AMELIA_AGENT_USER=none`: agents run as amelia's own user, knowingly."""
_STOP_SECONDS = 10.0
AGENT_STOP_REASON = (
    "amelia stops every process of the agent user its run started before its own git "
    "uses the token and at the end of the run"
)
_CANNOT_ENTER = 3
_ACCESS_CHECK = """
checkout=$1; shift
for directory in "$@" "$checkout"; do
  [ -x "$directory" ] || { printf '%s\\n' "$directory"; exit 3; }
done
cd -- "$checkout" || exit 4
[ -n "$AMELIA_ENTER_ONLY" ] && exit 0
probe=$(mktemp ./.amelia-access-check.XXXXXX) || exit 4
rm -f -- "$probe" || exit 4
"""
"""Run as the agent user: every directory down to the checkout must be enterable (exit 3
names the first that is not), and (unless `AMELIA_ENTER_ONLY` is set) a file must be
creatable and removable in it."""


@dataclass(frozen=True, kw_only=True)
class AgentUser:
    """The unprivileged user agents run as; `home` is the run's fresh HOME for it."""

    uid: int
    gid: int
    name: str
    setpriv: str
    home: Path | None = None

    def command(self, argv: Sequence[str]) -> list[str]:
        """`argv` run as this user: uid, gid, no supplementary group, no new privileges."""
        return [
            self.setpriv,
            "--reuid",
            str(self.uid),
            "--regid",
            str(self.gid),
            "--clear-groups",
            "--no-new-privs",
            "--",
            *argv,
        ]

    def environment(self, env: Mapping[str, str]) -> dict[str, str]:
        """`env` for a process of this user: its own HOME, and git trusting checkouts of
        another owner (the checkout's `.git` stays amelia's) as the image's system config
        does."""
        result = dict(env)
        if self.home is not None:
            result["HOME"] = str(self.home)
        result["USER"] = result["LOGNAME"] = self.name
        result.pop("XDG_CONFIG_HOME", None)
        try:
            count = int(result.get("GIT_CONFIG_COUNT", "0"))
        except ValueError:
            count = 0
        result[f"GIT_CONFIG_KEY_{count}"] = "safe.directory"
        result[f"GIT_CONFIG_VALUE_{count}"] = "*"
        result["GIT_CONFIG_COUNT"] = str(count + 1)
        return result

    def own(self, path: Path) -> None:
        """Give `path` (never what a symlink points to) to this user."""
        os.chown(path, self.uid, self.gid, follow_symlinks=False)

    def can_reach(self, path: Path) -> bool:
        """Whether this user (no supplementary groups) may enter every directory above
        `path` and execute `path` itself."""
        target = Path(path).absolute()
        for directory in [*reversed(target.parents), target]:
            try:
                mode = directory.stat()
            except OSError:
                return False
            if mode.st_uid == self.uid:
                allowed = mode.st_mode & 0o100
            elif mode.st_gid == self.gid:
                allowed = mode.st_mode & 0o010
            else:
                allowed = mode.st_mode & 0o001
            if not allowed:
                return False
        return True

    def runnable(self, directory: Path, program: str | os.PathLike[str]) -> Path:
        """`program`, or when this user cannot reach it (amelia installed under a
        directory only root may enter, such as `/root`) a hard link to it (else a copy)
        in `directory`, which becomes enterable but stays root's and unlisted (0711)."""
        source = Path(program)
        if self.can_reach(source):
            return source
        directory.chmod(0o711)
        placed = directory / source.name
        try:
            try:
                os.link(source, placed)
            except OSError:
                shutil.copy2(source, placed)
        except OSError as error:
            raise AgentUserError(
                f"the agent user {self.name} cannot run {source} (a directory above it is "
                f"closed to other users) and amelia could not place a copy in {directory}: "
                f"{error.strerror or error}"
            ) from None
        if not self.can_reach(placed):
            raise AgentUserError(
                f"the agent user {self.name} cannot run {source}: a directory above it "
                f"and above {directory} is closed to other users"
            )
        return placed

    def wrapper(
        self,
        directory: Path,
        program: str | os.PathLike[str],
        *,
        pid_file: Path | None = None,
    ) -> Path:
        """A script in `directory` (root's, which this user cannot write) that runs
        `program` with its arguments as this user: for callers that take a program path,
        such as claude-agent-sdk's `cli_path`. A program this user cannot reach is
        placed in `directory` first (`runnable`). With `pid_file`, the script writes the
        process's pid there first (it stays the program's: every step execs)."""
        program = self.runnable(directory, program)
        return launcher(
            directory / "agent-claude", self.command([os.fspath(program)]), pid_file=pid_file
        )

    def check_entry(self, checkout: Path) -> None:
        """Make sure this user, as itself, can enter `checkout` and every directory above
        it: the check a run makes before anything else (no setup, no branch change, no
        comment), since the checkout is not handed over yet. Raises `ConfigError` with
        one line naming the directory that blocks it and what to do (`AgentUserError` when
        the check itself cannot run)."""
        self._check(checkout, enter_only=True)

    def check_access(self, checkout: Path) -> None:
        """Make sure this user, as itself, can enter `checkout` and create and remove a
        file there (call it once the checkout is handed over). Raises `AgentUserError`
        with one line naming the directory that blocks it and what to do."""
        self._check(checkout, enter_only=False)

    def _check(self, checkout: Path, *, enter_only: bool) -> None:
        target = Path(checkout).absolute()
        ancestors = [str(directory) for directory in reversed(target.parents)]
        environment = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
        if enter_only:
            environment["AMELIA_ENTER_ONLY"] = "1"
        try:
            ran = subprocess.run(
                self.command(["/bin/sh", "-c", _ACCESS_CHECK, "access-check", str(target)])
                + ancestors,
                env=environment,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                text=True,
                timeout=_STOP_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError) as error:
            raise AgentUserError(
                f"could not check that the agent user {self.name} can work in {target}: {error}"
            ) from None
        if ran.returncode == 0:
            return
        blocked = Path(ran.stdout.strip().splitlines()[-1]) if ran.stdout.strip() else target
        who = f"the agent user {self.name} (uid {self.uid})"
        escape = f"or set {AGENT_USER_VARIABLE}={NO_AGENT_USER} to run agents as amelia's own user"
        if ran.returncode == _CANNOT_ENTER:
            # Before the hand-over, where the workflow put the checkout is the fault: a
            # configuration error (exit 2), like a workspace that is no checkout.
            raise (ConfigError if enter_only else AgentUserError)(
                f"{who} cannot enter {blocked} ({_describe_directory(blocked)}), so it cannot "
                f"reach the checkout {target}: let other users enter it (chmod o+x {blocked}) "
                f"or put the checkout below a directory they can enter, {escape}"
            )
        reason = _last_line(ran.stderr) or f"exit {ran.returncode}"
        raise AgentUserError(
            f"{who} cannot create and remove a file in the checkout {target} ({reason}): "
            f"make it writable for that user, {escape}"
        )

    def processes(self) -> list[int]:
        """Live processes (zombies aside) of this user that descend from this process:
        this run's. Orphans come back to amelia, their reaper (`amelia.isolation.leftovers`),
        so a detached daemon an agent left counts too; another run's processes, of the
        same user, never do."""
        return sorted(pid for pid, _ in descendants(uid=self.uid))

    def stop_processes(self, *, reason: str = AGENT_STOP_REASON) -> int:
        """Kill every process of this user this run started (`processes`: what an agent
        left behind, detached or not) and wait until none is left; returns how many there
        were. Each is frozen first (SIGSTOP until none runs, so a process forking
        meanwhile cannot escape), then killed, each signal recorded with `reason`. Another
        run's processes of the same user are left alone. Raises `AgentUserError` when
        some survive."""
        if not sys.platform.startswith("linux"):
            return 0
        count, left = stop_processes(lambda: descendants(uid=self.uid), reason=reason)
        if left:
            raise AgentUserError(
                f"processes of the agent user {self.name} survived SIGKILL: "
                f"{', '.join(str(pid) for pid, _ in sorted(left))}"
            )
        if count:
            logger.info("stopped {} process(es) the agents left behind", count)
        return count


def _setpriv() -> str:
    found = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        raise AgentUserError(
            "setpriv (util-linux) is missing, so agents cannot run as an unprivileged user; "
            f"install util-linux, or set {AGENT_USER_VARIABLE}={NO_AGENT_USER}"
        )
    return found


def _passwd_entries(passwd: Path) -> list[tuple[str, int, int]]:
    """(name, uid, gid) of every well-formed line of a passwd(5) file."""
    try:
        text = passwd.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        raise ConfigError(f"cannot read the user database {passwd}: {error.strerror}") from None
    entries = []
    for line in text.splitlines():
        fields = line.split(":")
        if len(fields) >= 4 and fields[2].isdigit() and fields[3].isdigit():
            entries.append((fields[0], int(fields[2]), int(fields[3])))
    return entries


def _user_by_name(name: str, passwd: Path | None) -> tuple[int, int] | None:
    if passwd is None:
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            return None
        return entry.pw_uid, entry.pw_gid
    found = [(uid, gid) for user, uid, gid in _passwd_entries(passwd) if user == name]
    return found[0] if found else None


def _name_of(uid: int, passwd: Path | None) -> str | None:
    if passwd is None:
        try:
            return pwd.getpwuid(uid).pw_name
        except KeyError:
            return None
    found = [user for user, number, _ in _passwd_entries(passwd) if number == uid]
    return found[0] if found else None


def _lookup(value: str, passwd: Path | None) -> tuple[int, int, str]:
    """(uid, gid, name) for a user name or `<uid>:<gid>`, names looked up in `passwd`
    (None: the system's user database)."""
    uid_text, colon, gid_text = value.partition(":")
    if colon:
        if not (uid_text.isdigit() and gid_text.isdigit()):
            raise ConfigError(
                f"{AGENT_USER_VARIABLE} must be a user name, <uid>:<gid> or "
                f"{NO_AGENT_USER}, not {value!r}"
            )
        uid, gid = int(uid_text), int(gid_text)
        return uid, gid, _name_of(uid, passwd) or f"uid {uid}"
    found = _user_by_name(value, passwd)
    if found is None:
        raise AgentUserError(
            f"the agent user {value} does not exist in this image, and amelia will not run "
            f"agents as root (they could reach the Docker socket and the runner's "
            f"credentials); create it (see docs/container.md) or set "
            f"{AGENT_USER_VARIABLE}={NO_AGENT_USER} to accept that risk"
        )
    return found[0], found[1], value


_warned: set[str] = set()


def _once(message: str) -> None:
    if message not in _warned:
        _warned.add(message)
        logger.warning(message)


def resolve_agent_user(
    setting: str | None, *, euid: int | None = None, passwd: Path | None = None
) -> AgentUser | None:
    """The user agents run as, or None: as amelia's own user.

    Not root (a local run, the host action): None, said once, since only root can switch.
    Root: `setting` (default `amelia-agent`) names the user; `none` is an explicit opt-out,
    said once. Names are looked up in `passwd`, a passwd(5) file (None: the system's user
    database). Raises `AgentUserError` (exit 1) for a user missing from the image or a
    missing setpriv, `ConfigError` for a malformed setting or uid/gid 0."""
    euid = os.geteuid() if euid is None else euid
    value = (setting or "").strip() or DEFAULT_AGENT_USER
    if euid != 0:
        _once(
            f"amelia runs as uid {euid}, not root: agents run as that same user "
            "(only root can switch them to an unprivileged one)"
        )
        return None
    if value == NO_AGENT_USER:
        _once(
            f"{AGENT_USER_VARIABLE}={NO_AGENT_USER}: agents run as root, which can reach "
            "the Docker socket and the container's recorded credentials"
        )
        return None
    uid, gid, name = _lookup(value, passwd)
    if uid == 0 or gid == 0:
        raise ConfigError(f"{AGENT_USER_VARIABLE} must name an unprivileged user, not {value!r}")
    return AgentUser(uid=uid, gid=gid, name=name, setpriv=_setpriv())


@contextlib.contextmanager
def agent_home(user: AgentUser, *, parent: Path | None = None) -> Iterator[AgentUser]:
    """`user` with a fresh HOME of its own (mode 0700, so npm and pip caches work),
    removed with everything in it when the block ends. Its git config trusts checkouts
    of another owner (`safe.directory = *`, as `environment` and the image's system config
    do): a process that drops amelia's `GIT_CONFIG_*` variables, such as Claude Code's own
    git calls for what it tells its model, still reads the checkout."""
    home = Path(tempfile.mkdtemp(prefix="amelia-agent-home-", dir=parent))
    try:
        config = home / ".gitconfig"
        config.write_text("[safe]\n\tdirectory = *\n", encoding="utf-8")
        user.own(config)
        user.own(home)
        yield replace(user, home=home)
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _describe_directory(path: Path) -> str:
    try:
        status = path.stat()
    except OSError as error:
        return error.strerror or "cannot be read"
    try:
        owner = pwd.getpwuid(status.st_uid).pw_name
    except KeyError:
        owner = f"uid {status.st_uid}"
    return f"mode {stat.S_IMODE(status.st_mode):04o}, owner {owner}"


def _last_line(text: str) -> str:
    """The last non-empty line of `text`, stripped."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def launcher(script: Path, argv: Sequence[str], *, pid_file: Path | None = None) -> Path:
    """Write `script`, which runs `argv` with the script's own arguments added, in the
    same process (exec), after writing that process's pid to `pid_file` when given."""
    record = "" if pid_file is None else f"echo $$ > {shlex.quote(os.fspath(pid_file))}\n"
    script.write_text(f'#!/bin/sh\n{record}exec {shlex.join(argv)} "$@"\n', encoding="utf-8")
    script.chmod(0o755)
    return script
