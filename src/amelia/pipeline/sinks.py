"""Sinks: where stream events go (logs, transcript files, the terminal, progress comments).

A sink is any `async (StreamEvent) -> None`. Sinks are best effort: `guarded()` wraps one
so that its failure is logged and swallowed, and `dispatch()` sends an event to all of them.
A sink can never stop a run.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from loguru import logger

from amelia.core.types import StreamEvent, StreamEventType
from amelia.text import one_line

__all__ = [
    "PREVIEW_CHARS",
    "JsonlTranscriptSink",
    "Sink",
    "TerminalProgressSink",
    "describe",
    "dispatch",
    "guarded",
    "log_sink",
]


Sink = Callable[[StreamEvent], Awaitable[None]]

PREVIEW_CHARS = 200


def guarded(sink: Sink, *, name: str | None = None) -> Sink:
    """Wrap `sink` so that an exception is logged instead of propagated."""
    label = name or getattr(sink, "__name__", None) or type(sink).__name__

    async def guarded_sink(event: StreamEvent) -> None:
        try:
            await sink(event)
        except Exception as error:
            logger.opt(exception=error).warning(
                "Sink {} failed on {} event; continuing", label, event.type.value
            )

    return guarded_sink


async def dispatch(sinks: Iterable[Sink], event: StreamEvent) -> None:
    """Hand `event` to every sink, in order, each one guarded."""
    for sink in sinks:
        await guarded(sink)(event)


def describe(event: StreamEvent) -> str:
    """A short human-readable line for an event."""
    kind = event.type
    if kind == StreamEventType.CLAUDE_TOOL_CALL:
        arguments = one_line(str(event.tool_input or {}), limit=120)
        return f"{event.agent}: → {event.tool_name} {arguments}"
    if kind == StreamEventType.CLAUDE_TOOL_RESULT:
        marker = "✗" if event.is_error else "←"
        content = one_line(event.content, limit=120)
        return f"{event.agent}: {marker} {event.tool_name or 'tool'} {content}"
    if kind == StreamEventType.CLAUDE_THINKING:
        return f"{event.agent}: … {one_line(event.content, limit=120)}"
    content = one_line(event.content, limit=PREVIEW_CHARS)
    return f"{event.agent}: {kind.value.replace('_', ' ')} {content}".rstrip()


async def log_sink(event: StreamEvent) -> None:
    """Log every event through loguru: errors as warnings, tool traffic at debug level."""
    level = "WARNING" if event.is_error else "INFO"
    if event.type in (StreamEventType.CLAUDE_THINKING, StreamEventType.CLAUDE_TOOL_RESULT):
        level = "WARNING" if event.is_error else "DEBUG"
    logger.bind(workflow_id=event.workflow_id, agent=event.agent).log(level, describe(event))


class JsonlTranscriptSink:
    """Appends each event as one JSON line to a file: the raw record of a run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = asyncio.Lock()

    async def __call__(self, event: StreamEvent) -> None:
        line = event.model_dump_json() + "\n"
        async with self._lock:
            await asyncio.to_thread(self._append, line)

    def _append(self, line: str) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(line)


class TerminalProgressSink:
    """Shows progress: a live rich display on a terminal, plain lines otherwise.

    Use as an async context manager so the live display is stopped at the end of a run.
    """

    def __init__(self, *, stream: IO[str] | None = None, live: bool | None = None) -> None:
        self.stream = stream or sys.stdout
        self.live = self.stream.isatty() if live is None else live
        self._display: Any = None
        self._console: Any = None
        self._stage = "starting"

    async def __aenter__(self) -> TerminalProgressSink:
        if self.live:
            # rich comes with typer; imported here so plain output never pays for it.
            from rich.console import Console
            from rich.status import Status

            self._console = Console(file=self.stream)
            self._display = Status(self._stage, console=self._console)
            self._display.start()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        if self._display is not None:
            self._display.stop()
            self._display = None

    async def __call__(self, event: StreamEvent) -> None:
        line = describe(event)
        if event.type == StreamEventType.STAGE_STARTED:
            self._stage = f"{event.agent}: {one_line(event.content, limit=80)}"
        if self._display is not None and self._console is not None:
            from rich.markup import escape

            style = "red" if event.is_error else ("bold" if self._is_milestone(event) else "dim")
            self._console.print(f"[{style}]{escape(line)}[/{style}]")
            self._display.update(f"{escape(self._stage)} — {escape(one_line(line, limit=80))}")
            return
        self.stream.write(line + "\n")
        self.stream.flush()

    @staticmethod
    def _is_milestone(event: StreamEvent) -> bool:
        return event.type in (
            StreamEventType.STAGE_STARTED,
            StreamEventType.STAGE_COMPLETED,
            StreamEventType.WORKFLOW_COMPLETED,
            StreamEventType.WORKFLOW_FAILED,
            StreamEventType.AGENT_OUTPUT,
        )
