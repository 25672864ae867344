"""Restart amelia without credentials in its environment, handing them over through a pipe.

Every process of the same user can read another's initial environment at
`/proc/<pid>/environ`, and in the Action's container amelia is pid 1 with the runner's
INPUT_GITHUB_TOKEN, INPUT_ANTHROPIC_API_KEY, ACTIONS_RUNTIME_TOKEN, ... in it. Unsetting
them in `os.environ` changes nothing there: the kernel shows the block the process was
started with. So `isolate_secrets()`, called first thing by the `amelia action` entry:

1. takes the credential-holding variables out of the environment (`amelia.redaction.names`),
2. writes their values into a pipe whose read end it marks inheritable (never argv,
   never the environment), closes the write end, and
3. `os.execve`s the same interpreter and command line with the environment minus those
   variables plus AMELIA_HANDOFF_FD naming the pipe's descriptor.

The new program (same pid, so this works as pid 1 in a container) finds AMELIA_HANDOFF_FD,
reads the whole pipe, closes it at once and forgets the variable, so its
`/proc/<pid>/environ`, `cmdline` and `fd/` hold no credential. It then marks itself not
inspectable (`inspection.forbid_inspection`). The values are read through
`handed_over_secrets()`, or `runner_environment()`, the runner's environment with them
put back, which the settings read instead of `os.environ`.

Anything unexpected (no pipe, a pipe too small, an unreadable or malformed handoff, a
credential still in the environment after the restart) raises `IsolationError`: amelia
never goes on with a credential in a readable place.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import sys
from collections import ChainMap
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final, NoReturn

from amelia.errors import RunError
from amelia.isolation.inspection import forbid_inspection
from amelia.redaction.names import is_secret_name, secret_variables

__all__ = [
    "HANDOFF_FD_VARIABLE",
    "IsolationError",
    "handed_over_secrets",
    "isolate_secrets",
    "runner_environment",
]

HANDOFF_FD_VARIABLE: Final = "AMELIA_HANDOFF_FD"
"""Names the inherited descriptor the restarted program reads the credentials from."""

_MAGIC: Final = b"amelia-secrets/1\n"
_MAX_HANDOFF_BYTES: Final = 1 << 20
_PIPE_BYTES: Final = 1 << 20

_received: dict[str, str] = {}


class IsolationError(RunError):
    """amelia could not keep the credentials out of readable places; the run must stop."""


def handed_over_secrets() -> Mapping[str, str]:
    """The credential variables handed over at start (empty if `isolate_secrets` did not
    run or there were none), by their original names; read-only."""
    return MappingProxyType(_received)


def runner_environment() -> Mapping[str, str]:
    """The runner's environment as it was given to amelia: `os.environ` (live) with the
    handed-over credentials put back. Read this instead of `os.environ`."""
    return MappingProxyType(ChainMap(_received, os.environ))


def isolate_secrets(*, argv: Sequence[str] | None = None) -> None:
    """Make sure no credential sits in this process's environment; call it first thing.

    Without credentials in the environment, it only marks the process not inspectable.
    With some, it does not return: it restarts the program (`argv`, default the
    interpreter's own `sys.orig_argv`) with them handed over through a pipe. In the
    restarted program it receives them. Raises `IsolationError` when any step fails.
    """
    if HANDOFF_FD_VARIABLE in os.environ:
        _received.update(_receive(os.environ.pop(HANDOFF_FD_VARIABLE)))
        left = sorted(name for name in secret_variables(os.environ))
        if left:
            raise IsolationError(
                "Credentials are still in the environment after the restart: " + ", ".join(left)
            )
    else:
        secrets = secret_variables(os.environ)
        if secrets:
            _restart(secrets, list(sys.orig_argv if argv is None else argv))
    try:
        forbid_inspection()
    except OSError as error:
        raise IsolationError(
            f"Could not forbid other processes to inspect amelia: {error.strerror}"
        ) from error


def _restart(secrets: Mapping[str, str], argv: list[str]) -> NoReturn:
    executable = sys.executable
    if not executable or not argv:
        raise IsolationError(
            "Cannot restart amelia without credentials in its environment: "
            "the Python interpreter's path or command line is unknown"
        )
    payload = _MAGIC + json.dumps(dict(secrets), ensure_ascii=True).encode("ascii")
    read_end, write_end = os.pipe()
    try:
        _fill(write_end, payload)
    except OSError as error:
        os.close(read_end)
        raise IsolationError(
            f"Cannot hand the credentials over to a clean process: {error.strerror}"
        ) from error
    finally:
        os.close(write_end)
    environment = {name: value for name, value in os.environ.items() if name not in secrets}
    environment[HANDOFF_FD_VARIABLE] = str(read_end)
    os.set_inheritable(read_end, True)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    try:
        os.execve(executable, [executable, *argv[1:]], environment)  # noqa: S606
    except OSError as error:
        os.close(read_end)
        raise IsolationError(
            f"Cannot restart amelia without credentials in its environment: {error.strerror}"
        ) from error


def _fill(write_end: int, payload: bytes) -> None:
    """Write all of `payload` into the pipe now, or fail: nobody reads it before execve."""
    # The default size (64 KiB) holds any realistic set of credentials; larger is a bonus.
    with contextlib.suppress(OSError):
        fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, _PIPE_BYTES)
    os.set_blocking(write_end, False)
    view = memoryview(payload)
    while view:
        try:
            written = os.write(write_end, view)
        except BlockingIOError as error:
            raise OSError(errno.EMSGSIZE, "they do not fit into a pipe") from error
        view = view[written:]


def _receive(marker: str) -> dict[str, str]:
    if not marker.isdigit():
        raise IsolationError(f"{HANDOFF_FD_VARIABLE} does not name a file descriptor")
    descriptor = int(marker)
    if descriptor < 3:
        raise IsolationError(f"{HANDOFF_FD_VARIABLE} names a standard stream, not a pipe")
    try:
        try:
            if not stat.S_ISFIFO(os.fstat(descriptor).st_mode):
                raise IsolationError(f"{HANDOFF_FD_VARIABLE} does not name a pipe")
            data = _read_all(descriptor)
        finally:
            os.close(descriptor)
    except OSError as error:
        raise IsolationError(
            f"Cannot read the credentials handed over at start: {error.strerror}"
        ) from error
    return _parse(data)


def _read_all(descriptor: int) -> bytes:
    os.set_blocking(descriptor, True)
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(descriptor, 65536):
        size += len(chunk)
        if size > _MAX_HANDOFF_BYTES:
            raise IsolationError("The credentials handed over at start are too large")
        chunks.append(chunk)
    return b"".join(chunks)


def _parse(data: bytes) -> dict[str, str]:
    if not data.startswith(_MAGIC):
        raise IsolationError("The credentials handed over at start are not amelia's")
    try:
        parsed = json.loads(data[len(_MAGIC) :])
    except ValueError as error:
        raise IsolationError("The credentials handed over at start are malformed") from error
    if not isinstance(parsed, dict) or not all(
        isinstance(name, str) and isinstance(value, str) and is_secret_name(name)
        for name, value in parsed.items()
    ):
        raise IsolationError("The credentials handed over at start are malformed")
    return parsed
