"""Conversation history of API-driver sessions, kept as pydantic-ai JSON under AMELIA_HOME.

Histories are redacted before they are written, like transcripts: a resumed session sees
`***` where a secret was.
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from pydantic import ValidationError
from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter

from amelia.errors import DriverError
from amelia.redaction import Redactor

__all__ = ["SessionStore", "new_session_id"]


_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def new_session_id() -> str:
    return uuid.uuid4().hex


class SessionStore:
    """`<home>/sessions/<id>.json`: the full message history after each finished run."""

    def __init__(self, home: Path, *, redactor: Redactor | None = None) -> None:
        self.directory = home / "sessions"
        self.redactor = redactor if redactor is not None else Redactor()

    def path(self, session_id: str) -> Path:
        if not _SESSION_ID.fullmatch(session_id):
            raise DriverError(
                f"Invalid session id {session_id!r}: use letters, digits, '-' and '_' only"
            )
        return self.directory / f"{session_id}.json"

    def load(self, session_id: str) -> list[ModelMessage]:
        path = self.path(session_id)
        if not path.is_file():
            raise DriverError(f"Unknown session {session_id!r}: no history at {path}")
        try:
            return ModelMessagesTypeAdapter.validate_json(path.read_bytes())
        except ValidationError as error:
            raise DriverError(f"Session {session_id!r} at {path} is unreadable: {error}") from error

    def save(self, session_id: str, messages: list[ModelMessage]) -> Path:
        path = self.path(session_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".json.tmp")
        text = ModelMessagesTypeAdapter.dump_json(messages, indent=1).decode("utf-8")
        partial.write_text(self.redactor.redact_json(text), encoding="utf-8")
        partial.replace(path)  # atomic, so a crash never leaves half a history
        return path
