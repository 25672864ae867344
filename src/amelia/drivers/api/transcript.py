"""JSONL transcript of an API-driver run: one AgenticMessage per line, flushed per line."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import IO

from amelia.drivers.base import AgenticMessage


def new_transcript_path(home: Path, session_id: str) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    return home / "runs" / f"{stamp}-api-{session_id[:12]}-{uuid.uuid4().hex[:6]}.jsonl"


class Transcript:
    """Appends each message as it is yielded, so a killed run keeps what it did."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def __enter__(self) -> Transcript:
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

    def append(self, message: AgenticMessage) -> None:
        if self._file is None:
            raise RuntimeError("Transcript used outside its context")
        record = {"at": datetime.now(UTC).isoformat(), **message.model_dump(mode="json")}
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()
