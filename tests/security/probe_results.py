"""Reading what `credential_probe.py` copied out, and searching it for credentials."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

PROBE = Path(__file__).resolve().with_name("credential_probe.py")


def spellings(secret: str) -> list[bytes]:
    """The secret raw and base64-encoded (standard and URL-safe) at any byte alignment."""
    raw = secret.encode()
    found = [raw]
    for pad in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(b"\0" * pad + raw)
            # Drop the characters that mix in the padding bytes or the unknown next bytes.
            start = (pad * 4 + 2) // 3
            found.append(encoded[start : len(encoded) - 4])
    return found


def found_in(dump: bytes, credentials: dict[str, str]) -> set[str]:
    """Names of the credentials whose value appears in `dump`, raw or base64-encoded."""
    return {
        name
        for name, value in credentials.items()
        if any(spelling in dump for spelling in spellings(value))
    }


class ProbeDump:
    """The probe's dump file and its JSON report of what it could read."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def data(self) -> bytes:
        return self.path.read_bytes()

    @property
    def report(self) -> dict[str, Any]:
        parsed: dict[str, Any] = json.loads(Path(f"{self.path}.json").read_text())
        return parsed

    def process(self, pid: int) -> dict[str, Any]:
        """What the probe could read of process `pid`."""
        entry: dict[str, Any] = self.report["processes"][str(pid)]
        return entry

    def sections(self, kind: str, pid: int | None = None) -> bytes:
        """The dumped bytes of one kind of read (`environ`, `mem`, `fd`, ...), joined."""
        dump, kept, offset = self.data, [], 0
        while (start := dump.find(b"\n=== ", offset)) >= 0:
            header_end = dump.index(b"\n", start + 1)
            label = dump[start + 5 : header_end].decode()
            size = int(label.rsplit("(", 1)[1].split()[0])
            owner, what = label.split()[:2]
            if what == kind and (pid is None or owner == str(pid)):
                kept.append(dump[header_end + 1 : header_end + 1 + size])
            offset = header_end + 1 + size
        return b"".join(kept)
