"""Forbid other processes of the same user to inspect amelia's process.

A process marked not dumpable (`prctl(PR_SET_DUMPABLE, 0)`) can be inspected only by a
process holding CAP_SYS_PTRACE: without it, opening its `/proc/<pid>/environ`, `mem`,
`fd/*`, `maps`, attaching with ptrace or reading with `process_vm_readv` all fail with
EACCES/EPERM, and it writes no core dump. Docker's default capability set has no
CAP_SYS_PTRACE, so an agent's tool in the Action's container cannot read amelia's memory,
where the credentials live, whatever the host's Yama ptrace policy. The mark is reset by
execve, so the programs amelia starts (the model CLI, agents' tools) stay ordinary.
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Final

__all__ = ["forbid_inspection", "inspection_forbidden"]

_PR_SET_DUMPABLE: Final = 4
_PR_GET_DUMPABLE: Final = 3


def _prctl(option: int, argument: int = 0) -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    result = int(libc.prctl(option, argument, 0, 0, 0))
    if result < 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return result


def forbid_inspection() -> bool:
    """Mark this process not dumpable; True when done, False where Linux's prctl is absent."""
    if not sys.platform.startswith("linux"):
        return False
    _prctl(_PR_SET_DUMPABLE, 0)
    return True


def inspection_forbidden() -> bool:
    """True when this process is marked not dumpable (always False off Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    return _prctl(_PR_GET_DUMPABLE) == 0
