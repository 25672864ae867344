"""Sinks: best effort, JSONL transcripts, terminal progress, loguru logging."""

from __future__ import annotations

import io
import json
from pathlib import Path

from loguru import logger

from amelia.core.types import StreamEvent, StreamEventType
from amelia.pipeline.sinks import (
    JsonlTranscriptSink,
    TerminalProgressSink,
    describe,
    dispatch,
    guarded,
    log_sink,
)


def _event(
    kind: StreamEventType = StreamEventType.CLAUDE_TOOL_CALL, **extra: object
) -> StreamEvent:
    return StreamEvent.model_validate(
        {"type": kind, "agent": "developer", "workflow_id": "wf", "tool_name": "Bash", **extra}
    )


async def test_failing_sink_is_swallowed_and_later_sinks_still_run() -> None:
    received: list[StreamEvent] = []

    async def broken(event: StreamEvent) -> None:
        raise RuntimeError("comment API down")

    async def recording(event: StreamEvent) -> None:
        received.append(event)

    messages: list[str] = []
    handler = logger.add(lambda message: messages.append(str(message)), level="WARNING")
    try:
        await dispatch([broken, recording], _event())
        await guarded(broken, name="progress-comment")(_event())
    finally:
        logger.remove(handler)
    assert len(received) == 1
    assert any("progress-comment failed" in message for message in messages)


async def test_jsonl_transcript_has_one_parseable_line_per_event(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "run.jsonl"
    sink = JsonlTranscriptSink(path)
    await sink(_event(tool_input={"command": "ls"}))
    await sink(_event(StreamEventType.CLAUDE_TOOL_RESULT, content="boom", is_error=True))
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    assert [row["type"] for row in rows] == ["claude_tool_call", "claude_tool_result"]
    assert rows[0]["tool_input"] == {"command": "ls"}
    assert rows[1]["is_error"] is True


async def test_terminal_sink_writes_plain_lines_when_not_a_terminal() -> None:
    stream = io.StringIO()
    async with TerminalProgressSink(stream=stream) as sink:
        assert sink.live is False
        await sink(_event(tool_input={"command": "pytest -q"}))
        await sink(_event(StreamEventType.CLAUDE_TOOL_RESULT, content="1 failed", is_error=True))
    lines = stream.getvalue().splitlines()
    assert lines[0] == "developer: → Bash {'command': 'pytest -q'}"
    assert lines[1] == "developer: ✗ Bash 1 failed"


async def test_terminal_sink_live_mode_renders_with_rich() -> None:
    stream = io.StringIO()
    async with TerminalProgressSink(stream=stream, live=True) as sink:
        await sink(_event(StreamEventType.STAGE_STARTED, content="planning [bold]x[/bold]"))
    assert "planning [bold]x[/bold]" in stream.getvalue()


async def test_log_sink_logs_errors_as_warnings() -> None:
    records: list[tuple[str, str]] = []
    handler = logger.add(
        lambda message: records.append((message.record["level"].name, message.record["message"])),
        level="DEBUG",
    )
    try:
        await log_sink(_event(StreamEventType.CLAUDE_TOOL_RESULT, content="denied", is_error=True))
        await log_sink(_event(StreamEventType.STAGE_STARTED, content="planning"))
    finally:
        logger.remove(handler)
    assert records == [
        ("WARNING", "developer: ✗ Bash denied"),
        ("INFO", "developer: stage started planning"),
    ]


def test_describe_truncates_long_content() -> None:
    line = describe(_event(StreamEventType.AGENT_OUTPUT, content="x" * 1000))
    assert len(line) < 260 and line.endswith("…")
