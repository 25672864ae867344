"""The Action's log: one line per record on stderr (or the stream the engine was handed),
every message through the redactor."""

from __future__ import annotations

import sys
from typing import Any, TextIO

from loguru import logger

from amelia.redaction import Redactor

__all__ = ["configure_logging"]


def configure_logging(redactor: Redactor, *, stream: TextIO | None = None) -> None:
    """Send loguru to `stream` (default: stderr) at INFO, redacted, without variable values
    in tracebacks."""

    def redact(record: Any) -> None:
        record["message"] = redactor.redact(record["message"])

    logger.remove()
    logger.configure(patcher=redact)
    # diagnose=False: a traceback must never print variable values (tokens live in some).
    logger.add(
        stream or sys.stderr,
        level="INFO",
        format="{level}: {message}",
        backtrace=False,
        diagnose=False,
    )
