"""What an agent's shell tries as the agent user (standard library only: the agent user runs
it with the system's python3, which any uid can run).

    python3 agent_user_probe.py OUT report NAME --socket S --foreign F
        writes OUT/NAME.json: this process's Uid/Gid/Groups/NoNewPrivs, and the errno
        (or "ok") of connecting to the socket S, reading amelia's environ and mem,
        writing a hook and the config into .git, appending to the file F (another
        uid's), `git status`, writing a file in the checkout and in HOME; then starts
        a detached daemon (setsid, nohup-like) and waits until it runs.
    python3 agent_user_probe.py OUT status NAME
        writes OUT/NAME.json with the status lines only (the test command).
    python3 agent_user_probe.py OUT daemon
        the daemon: writes its pid to OUT/daemon.pid, then, until killed, reads every
        /proc/<pid>/environ and cmdline it can and appends what looks like a credential
        to OUT/daemon-found.txt.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

WANTED = ("Uid", "Gid", "Groups", "NoNewPrivs")
CREDENTIAL_HINTS = (b"extraheader", b"AUTHORIZATION", b"x-access-token", b"ghs_", b"sk-")


def status() -> dict[str, list[str]]:
    lines = Path("/proc/self/status").read_text().splitlines()
    pairs = (line.split(":", 1) for line in lines if ":" in line)
    return {key: value.split() for key, value in pairs if key in WANTED}


def attempt(action: Callable[[], object]) -> str:
    try:
        action()
    except OSError as error:
        return errno.errorcode.get(error.errno or 0, str(error.errno))
    return "ok"


def amelia_pid() -> int:
    """The ancestor running `amelia.cli action`."""
    pid = os.getppid()
    while pid > 1:
        if b"amelia.cli\0action" in Path(f"/proc/{pid}/cmdline").read_bytes():
            return pid
        pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    return 1


def connect(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)


def append(path: str, data: str) -> None:
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(data)


def read(path: str) -> None:
    with open(path, "rb") as handle:
        handle.read(1)


def report(out: Path, name: str, sock: str, foreign: str) -> None:
    pid = amelia_pid()
    home = os.environ.get("HOME", "")
    git = subprocess.run(["git", "status", "--porcelain"], capture_output=True, check=False)
    found = {
        "status": status(),
        "amelia": pid,
        "docker_socket": attempt(lambda: connect(sock)),
        "amelia_environ": attempt(lambda: read(f"/proc/{pid}/environ")),
        "amelia_mem": attempt(lambda: read(f"/proc/{pid}/mem")),
        "git_hook": attempt(lambda: append(".git/hooks/pre-push", "#!/bin/sh\n")),
        "git_config": attempt(lambda: append(".git/config", "[core]\n")),
        "foreign_file": attempt(lambda: append(foreign, "EVIL=1\n")),
        "git_status": git.returncode,
        "checkout_write": attempt(lambda: append("agent-made.txt", "made by the agent\n")),
        "home": home,
        "home_owner": os.stat(home).st_uid if home else -1,
        "home_write": attempt(lambda: append(os.path.join(home, ".cache-probe"), "x")),
    }
    (out / f"{name}.json").write_text(json.dumps(found))
    subprocess.Popen(
        [sys.executable, __file__, str(out), "daemon"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    for _ in range(200):
        if (out / "daemon.pid").exists():
            break
        time.sleep(0.05)


def daemon(out: Path) -> None:
    (out / "daemon.pid").write_text(str(os.getpid()))
    while True:
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit() or entry.name == str(os.getpid()):
                continue
            for part in ("environ", "cmdline"):
                try:
                    data = Path(entry.path, part).read_bytes()
                except OSError:
                    continue
                if part == "environ" and data:
                    append(str(out / "daemon-read.txt"), f"{entry.name}\n")
                if any(hint in data for hint in CREDENTIAL_HINTS):
                    with open(out / "daemon-found.txt", "ab") as handle:
                        handle.write(data + b"\n")
        time.sleep(0.05)


def main() -> None:
    out, mode = Path(sys.argv[1]), sys.argv[2]
    if mode == "daemon":
        daemon(out)
    elif mode == "status":
        (out / f"{sys.argv[3]}.json").write_text(json.dumps({"status": status()}))
    else:
        arguments = dict(zip(sys.argv[4::2], sys.argv[5::2], strict=True))
        report(out, sys.argv[3], arguments["--socket"], arguments["--foreign"])


if __name__ == "__main__":
    main()
