"""Run a program with the capabilities Docker gives a container's root, and no more.

    python docker_capabilities.py <program> [arguments...]

Drops every capability outside Docker's default set (moby's `DefaultCapabilities`: no
CAP_SYS_PTRACE, no CAP_SYS_ADMIN, ...) from the bounding set, then execs the program; a
root program's permitted and effective sets are recomputed from the bounding set on exec,
so it and everything it starts hold Docker's set, as amelia and its agents do in the
Action's container. Needs root (CAP_SETPCAP).
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

DOCKER_DEFAULT_CAPABILITIES = {
    0,  # CAP_CHOWN
    1,  # CAP_DAC_OVERRIDE
    3,  # CAP_FOWNER
    4,  # CAP_FSETID
    5,  # CAP_KILL
    6,  # CAP_SETGID
    7,  # CAP_SETUID
    8,  # CAP_SETPCAP
    10,  # CAP_NET_BIND_SERVICE
    13,  # CAP_NET_RAW
    18,  # CAP_SYS_CHROOT
    27,  # CAP_MKNOD
    29,  # CAP_AUDIT_WRITE
    31,  # CAP_SETFCAP
}
_PR_CAPBSET_DROP = 24


def main(arguments: list[str]) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    last = int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    for capability in range(last + 1):
        dropped = capability in DOCKER_DEFAULT_CAPABILITIES or (
            libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) == 0
        )
        if not dropped:
            raise OSError(ctypes.get_errno(), f"cannot drop capability {capability}")
    os.execv(arguments[0], arguments)


if __name__ == "__main__":
    main(sys.argv[1:])
