"""The agent user: who it is, what a process started as it is, how its processes stop, and
the checkout's owners handed over and back without following a link out of it."""

from __future__ import annotations

import contextlib
import grp
import json
import os
import pwd
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.drivers.api.files import ConfinedFiles
from amelia.errors import AgentUserError, ConfigError
from amelia.isolation import agent_user as agent_user_module
from amelia.isolation.agent_user import AgentUser, agent_home, resolve_agent_user
from amelia.isolation.ownership import CheckoutOwnership, give_git_back, give_home_to
from tests.git_helpers import init_repo
from tests.image_user import ImageUser

IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="only root can switch users")


@pytest.fixture
def agent() -> AgentUser:
    """An uid and gid no passwd entry names and no process uses."""
    number = random.randint(40_000, 59_999)
    found = resolve_agent_user(f"{number}:{number}", euid=0)
    assert found is not None
    return found


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A directory any uid can enter (pytest's tmp_path is root's alone)."""
    base = Path(tempfile.mkdtemp(prefix="amelia-agent-unit-"))
    base.chmod(0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


PASSWD = (
    "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
)
IMAGE_USER = "amelia-agent:x:10001:10001::/nonexistent:/usr/sbin/nologin\n"
"""The line the Dockerfile's useradd writes (the image test checks the image holds it)."""


def test_who_agents_run_as(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # Against a user database of the test's own: whether this machine has the image's
    # user (the image does; so does any machine where a test or an install made it) must
    # not change what is checked here.
    monkeypatch.setattr(agent_user_module, "_warned", set())
    without = tmp_path / "passwd-without"
    without.write_text(PASSWD)
    image = tmp_path / "passwd-image"
    image.write_text(PASSWD + IMAGE_USER)
    assert resolve_agent_user("", euid=1001, passwd=without) is None  # not root
    assert resolve_agent_user("none", euid=0, passwd=without) is None  # the explicit opt-out
    nobody = resolve_agent_user("nobody", euid=0, passwd=without)
    assert nobody is not None and (nobody.uid, nobody.gid, nobody.name) == (65534, 65534, "nobody")
    numbers = resolve_agent_user("40001:40002", euid=0, passwd=without)
    assert numbers is not None and (numbers.uid, numbers.gid) == (40001, 40002)
    assert numbers.name == "uid 40001"
    named = resolve_agent_user("65534:65534", euid=0, passwd=without)
    assert named is not None and named.name == "nobody"
    with pytest.raises(
        AgentUserError, match=r"amelia-agent does not exist.*AMELIA_AGENT_USER=none"
    ):
        resolve_agent_user("", euid=0, passwd=without)
    found = resolve_agent_user("", euid=0, passwd=image)
    assert found is not None
    assert (found.uid, found.gid, found.name) == (10001, 10001, "amelia-agent")
    for bad in ("0:0", "root", "x:1", "1:"):
        with pytest.raises(ConfigError):
            resolve_agent_user(bad, euid=0, passwd=image)
    with pytest.raises(ConfigError, match="cannot read the user database"):
        resolve_agent_user("", euid=0, passwd=tmp_path / "missing")


@needs_root
def test_git_of_the_user_trusts_a_checkout_of_another_owner_even_without_amelias_variables(
    agent: AgentUser, reachable: Path
) -> None:
    # As Claude Code's own git calls (the context it gives its model) run: HOME, no
    # GIT_CONFIG_* of amelia's. Without the home's config git refuses ("dubious ownership")
    # and the model is told the status is "(unavailable)".
    checkout = init_repo(reachable / "checkout", {"README.md": "hi\n"})  # root's
    with agent_home(agent, parent=reachable) as user:
        assert user.home is not None
        shown = subprocess.run(
            user.command(["git", "-C", str(checkout), "log", "--format=%s"]),
            env={"PATH": "/usr/bin:/bin", "HOME": str(user.home)},
            capture_output=True,
            text=True,
            check=False,
        )
    assert (shown.returncode, shown.stdout.strip()) == (0, "init"), shown.stderr


@needs_root
def test_a_command_runs_with_the_users_ids_no_group_and_no_new_privileges(
    agent: AgentUser, reachable: Path
) -> None:
    with agent_home(agent, parent=reachable) as user:
        assert user.home is not None and user.home.stat().st_uid == agent.uid
        environment = user.environment({"PATH": "/usr/bin:/bin"})
        shown = subprocess.run(
            user.command(
                [
                    "/bin/sh",
                    "-c",
                    'grep -E "^(Uid|Gid|Groups|NoNewPrivs):" '
                    '/proc/self/status; echo "HOME=$HOME"; touch "$HOME/cache"',
                ]
            ),
            env=environment,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        home = user.home
    assert shown == [
        "Uid:", *[str(agent.uid)] * 4,
        "Gid:", *[str(agent.gid)] * 4,
        "Groups:",
        "NoNewPrivs:", "1",
        f"HOME={home}",
    ]  # fmt: skip
    assert not home.exists()


RUN = """
import json, subprocess, sys
from amelia.isolation.agent_user import resolve_agent_user
from amelia.isolation.leftovers import become_subreaper

agent = resolve_agent_user(sys.argv[1], euid=0)
assert become_subreaper()
script = "sleep 300 >/dev/null 2>&1 & setsid nohup sleep 300 >/dev/null 2>&1 & echo started"
subprocess.run(agent.command(["/bin/sh", "-c", script]), check=True, capture_output=True)
print(json.dumps(agent.processes()), flush=True)
if sys.argv[2] == "stop":
    print(json.dumps([agent.stop_processes(), agent.processes()]), flush=True)
else:
    sys.stdin.read()  # another run, still working
"""
"""One amelia run: it reaps its orphans, its agent user leaves a child and a detached
daemon behind, and it stops its agent user's processes (or keeps working)."""


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        return "\nState:\tZ" not in status.read_text()
    except OSError:
        return False


@needs_root
def test_a_run_stops_its_own_processes_of_the_user_and_not_another_runs(
    agent: AgentUser,
) -> None:
    user = f"{agent.uid}:{agent.gid}"
    other = subprocess.Popen(
        [sys.executable, "-c", RUN, user, "wait"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert other.stdout is not None
    others = json.loads(other.stdout.readline())
    try:
        assert len(others) == 2

        ran = subprocess.run(
            [sys.executable, "-c", RUN, user, "stop"], capture_output=True, text=True, check=True
        )
        mine, (stopped, left) = (json.loads(line) for line in ran.stdout.splitlines())

        assert len(mine) == 2 and set(mine).isdisjoint(others)
        assert (stopped, left) == (2, [])
        assert not any(_alive(pid) for pid in mine)
        assert all(_alive(pid) for pid in others)  # the other run's, same user, untouched
    finally:
        other.communicate("")
        for pid in others:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


@needs_root
def test_the_checkout_is_handed_over_and_back_without_leaving_it(
    agent: AgentUser, reachable: Path
) -> None:
    checkout = reachable / "checkout"
    (checkout / ".git" / "hooks").mkdir(parents=True)
    (checkout / "src").mkdir()
    (checkout / "src" / "a.py").write_text("A = 1\n")
    (checkout / "README.md").write_text("# r\n")
    outside = reachable / "outside"
    outside.write_text("root's\n")
    for path in (checkout, checkout / "src", checkout / "src" / "a.py"):
        os.chown(path, 1001, 1001)
    os.chown(checkout / "README.md", 1234, 1234)
    ownership = CheckoutOwnership(checkout, agent)
    ownership.record()
    (checkout / "made-by-amelia.txt").write_text("x\n")  # after record: a new path

    ownership.hand_over()
    owners = {p.name: p.lstat().st_uid for p in [checkout, *checkout.rglob("*")]}
    assert owners.pop(".git") == 0 and owners.pop("hooks") == 0
    assert set(owners.values()) == {agent.uid}
    # What the agent then does: a new file, a link out of the checkout, a hard link to a
    # file outside it (possible where fs.protected_hardlinks is 0), a file replaced.
    (checkout / "new.py").write_text("N = 1\n")
    agent.own(checkout / "new.py")
    (checkout / "link").symlink_to(outside)
    os.link(outside, checkout / "hard")
    (checkout / "src" / "a.py").unlink()
    (checkout / "src" / "a.py").write_text("A = 2\n")

    ownership.give_back()
    owner = {p.name: (p.lstat().st_uid, p.lstat().st_gid) for p in checkout.rglob("*")}
    assert checkout.lstat().st_uid == 1001
    assert owner["README.md"] == (1234, 1234)
    assert owner["src"] == owner["a.py"] == owner["new.py"] == (1001, 1001)
    assert owner["made-by-amelia.txt"] == owner["link"] == (1001, 1001)
    assert outside.stat().st_uid == 0  # neither the link nor the hard link moved it
    assert owner[".git"] == owner["hooks"] == (0, 0)


@needs_root
def test_files_the_tools_create_belong_to_the_agent_user(agent: AgentUser, reachable: Path) -> None:
    checkout = reachable / "checkout"
    checkout.mkdir()
    files = ConfinedFiles([checkout], owner=agent)
    files.write("deep/er/new.py", "N = 1\n")
    for path in ("deep", "deep/er", "deep/er/new.py"):
        assert (checkout / path).stat().st_uid == agent.uid, path
    assert files.read("deep/er/new.py") == "N = 1\n"


@needs_root
def test_a_program_the_user_cannot_reach_is_run_from_a_link_in_the_launch_directory(
    agent: AgentUser, reachable: Path
) -> None:
    closed = reachable / "closed"  # like /root, or a clone made by `mktemp -d`
    closed.mkdir(mode=0o700)
    program = closed / "tool"
    program.write_text("#!/bin/sh\nid -u\n")
    program.chmod(0o755)
    open_program = reachable / "open-tool"
    shutil.copy2(program, open_program)
    assert not agent.can_reach(program) and agent.can_reach(open_program)

    launch = Path(tempfile.mkdtemp(dir=reachable))  # 0700, root's, as the driver makes it
    assert agent.wrapper(launch, open_program).read_text().count(str(open_program)) == 1
    script = agent.wrapper(launch, program)
    placed = launch / "tool"
    assert str(placed) in script.read_text() and str(program) not in script.read_text()
    assert placed.stat().st_uid == 0 and oct(launch.stat().st_mode & 0o777) == "0o711"
    ran = subprocess.run([str(script)], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == [str(agent.uid)]

    closed_launch = closed / "launch"
    closed_launch.mkdir()
    with pytest.raises(AgentUserError, match=r"cannot run .*closed to other users"):
        agent.wrapper(closed_launch, program)


@needs_root
def test_what_amelias_git_made_in_dot_git_goes_back_to_the_checkouts_owner(
    reachable: Path,
) -> None:
    checkout = reachable / "checkout"
    subprocess.run(["git", "init", "-q", str(checkout)], check=True)
    (checkout / "a.txt").write_text("a\n")
    outside = reachable / "outside"
    outside.write_text("root's\n")
    for path in [checkout, *checkout.rglob("*")]:
        os.chown(path, 1001, 1001, follow_symlinks=False)
    git = ["git", "-C", str(checkout), "-c", "safe.directory=*", "-c", "user.name=a"]
    git += ["-c", "user.email=a@b"]
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "a"], check=True)  # as root: root's objects
    (checkout / ".git" / "link").symlink_to(outside)
    os.link(outside, checkout / ".git" / "hard")
    made_by_root = {p for p in (checkout / ".git").rglob("*") if p.lstat().st_uid == 0}
    assert checkout / ".git" / "index" in made_by_root

    assert give_git_back(checkout) == len(made_by_root) - 1  # all but the hard link

    owners = {p.name: p.lstat().st_uid for p in (checkout / ".git").rglob("*")}
    assert owners.pop("hard") == 0 and outside.stat().st_uid == 0
    assert set(owners.values()) == {1001}
    os.chown(checkout, 0, 0)  # a checkout of root's own: nothing to give back
    assert give_git_back(checkout) == 0


def test_the_test_setup_makes_the_images_user_as_the_dockerfile_does(image_user: ImageUser) -> None:
    entry = pwd.getpwnam(image_user.name)
    numbers = [str(entry.pw_uid), str(entry.pw_gid)]
    line = ":".join([entry.pw_name, "x", *numbers, entry.pw_gecos, entry.pw_dir, entry.pw_shell])
    assert f"{line}\n" == IMAGE_USER
    assert grp.getgrgid(entry.pw_gid).gr_name == "amelia-agent"
    assert grp.getgrgid(entry.pw_gid).gr_mem == []
    assert resolve_agent_user("", euid=0) == AgentUser(
        uid=10001, gid=10001, name="amelia-agent", setpriv=agent_user_module._setpriv()
    )


@needs_root
def test_the_access_check_names_what_blocks_the_user_and_leaves_nothing_behind(
    agent: AgentUser, reachable: Path
) -> None:
    checkout = reachable / "closed" / "checkout"
    checkout.mkdir(parents=True)
    (reachable / "closed").chmod(0o700)
    agent.own(checkout)
    with pytest.raises(AgentUserError) as entering:
        agent.check_access(checkout)
    message = entering.value.message
    assert f"cannot enter {reachable / 'closed'} (mode 0700, owner root)" in message
    assert f"chmod o+x {reachable / 'closed'}" in message and "\n" not in message

    (reachable / "closed").chmod(0o755)
    os.chown(checkout, 0, 0)  # enterable, but root's: no file can be made there
    with pytest.raises(AgentUserError, match=r"cannot create and remove a file in the checkout"):
        agent.check_access(checkout)

    agent.own(checkout)
    agent.check_access(checkout)
    assert list(checkout.iterdir()) == []


@needs_root
def test_the_entry_check_needs_only_a_way_in_not_the_checkout_handed_over(
    agent: AgentUser, reachable: Path
) -> None:
    checkout = reachable / "closed" / "checkout"
    checkout.mkdir(parents=True)
    (reachable / "closed").chmod(0o700)
    with pytest.raises(ConfigError) as entering:  # where the checkout is: exit 2
        agent.check_entry(checkout)
    message = entering.value.message
    assert f"cannot enter {reachable / 'closed'} (mode 0700, owner root)" in message
    assert "\n" not in message

    (reachable / "closed").chmod(0o755)
    agent.check_entry(checkout)  # still root's, as before the run hands it over
    assert checkout.stat().st_uid == 0 and list(checkout.iterdir()) == []


@needs_root
def test_what_the_setup_made_in_the_agents_home_becomes_the_agents(
    agent: AgentUser, reachable: Path
) -> None:
    outside = reachable / "outside"
    outside.write_text("root's\n")
    with agent_home(agent, parent=reachable) as user:
        assert user.home is not None
        (user.home / ".cargo" / "bin").mkdir(parents=True)  # as root, like the setup
        (user.home / ".cargo" / "bin" / "cargo").write_text("#!/bin/sh\n")
        (user.home / "link").symlink_to(outside)
        os.link(outside, user.home / "hard")

        assert give_home_to(user) == 4  # .cargo, bin, cargo, the link itself
        owners = {p.name: p.lstat().st_uid for p in user.home.rglob("*")}
        assert owners == {".cargo": agent.uid, "bin": agent.uid, "cargo": agent.uid} | {
            "link": agent.uid,
            "hard": 0,
            ".gitconfig": agent.uid,  # the home's own, the user's from the start
        }
        assert outside.stat().st_uid == 0
        assert give_home_to(user) == 0
