"""Stream events as the Actions log shows them: one collapsible group per stage."""

from __future__ import annotations

from amelia.action.workflow_io import WorkflowIO
from amelia.core.types import StreamEvent, StreamEventType
from amelia.pipeline.sinks import describe
from amelia.redaction import Redactor

__all__ = ["LogGroupSink"]


class LogGroupSink:
    """Opens `::group::` when a stage starts and closes it when the stage ends."""

    def __init__(self, io: WorkflowIO, redactor: Redactor) -> None:
        self._io = io
        self._redactor = redactor
        self._open = False

    async def __call__(self, event: StreamEvent) -> None:
        line = self._redactor.redact(describe(event))
        if event.type == StreamEventType.STAGE_STARTED:
            self.close()
            self._io.open_group(line)
            self._open = True
            return
        self._io.line(line)
        if event.type in (StreamEventType.STAGE_COMPLETED, StreamEventType.WORKFLOW_FAILED):
            self.close()

    def close(self) -> None:
        if self._open:
            self._io.close_group()
            self._open = False
