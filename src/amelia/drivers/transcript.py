"""JSONL transcripts of driver runs, kept outside the worktree under AMELIA_HOME.

Each line is redacted before it is written (the run's secrets and token patterns), so the
files later steps of a job can read, or an artifact upload publishes, hold no credential.
"""

from __future__ import annotations

import dataclasses
import json
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from amelia.redaction import Redactor

__all__ = ["TranscriptWriter", "amelia_home", "new_transcript_path"]


def amelia_home(*, override: str | os.PathLike[str] | None = None) -> Path:
    """The argument (amelia passes `$AMELIA_HOME` from its settings), else `~/.amelia`."""
    return Path(override) if override is not None else Path.home() / ".amelia"


def new_transcript_path(home: Path, *, tag: str = "") -> Path:
    """A fresh file under `<home>/runs/`, named by time, an optional tag and a random part."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    middle = f"-{tag}" if tag else ""
    return home / "runs" / f"{stamp}{middle}-{uuid.uuid4().hex[:8]}.jsonl"


def _plain(value: Any) -> Any:
    """JSON for what `json` cannot encode itself: an SDK dataclass as its fields (nested ones
    come back here one level at a time, with no deep copy as `dataclasses.asdict` makes),
    anything else as its string."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: getattr(value, field.name) for field in dataclasses.fields(value)}
    return str(value)


class TranscriptWriter:
    """Appends one redacted JSON line per message and flushes it, so a killed run keeps its
    lines. Without a `redactor`, known token formats are still masked."""

    def __init__(self, path: Path, *, redactor: Redactor | None = None) -> None:
        self.path = path
        self.redactor = redactor if redactor is not None else Redactor()
        self._file: IO[str] | None = None

    def __enter__(self) -> TranscriptWriter:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def write(self, kind: str, payload: Any) -> None:
        if self._file is None:
            raise RuntimeError("TranscriptWriter used outside its context")
        record = {"at": datetime.now(UTC).isoformat(), "kind": kind, "message": payload}
        line = self.redactor.redact_json(json.dumps(record, default=_plain))
        self._file.write(line + "\n")
        self._file.flush()
