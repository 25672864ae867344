"""Talking back to the runner: step outputs, the job summary, masks and log groups.

See GitHub's "workflow commands" documentation: outputs and the summary are files named by
`GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`; masks and groups are lines on stdout.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

__all__ = ["WorkflowIO"]


def _escape_command_value(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


class WorkflowIO:
    """Outputs, summary and log commands; with no runner files it only prints."""

    def __init__(
        self,
        *,
        output_path: str | None = None,
        summary_path: str | None = None,
        stream: TextIO | None = None,
    ) -> None:
        self._output_path = Path(output_path) if output_path else None
        self._summary_path = Path(summary_path) if summary_path else None
        self._stream = stream or sys.stdout
        self.outputs: dict[str, str] = {}
        self._masked: set[str] = set()

    def _print(self, line: str) -> None:
        print(line, file=self._stream, flush=True)

    def mask(self, value: str) -> None:
        """Ask the runner to hide `value` in the log, one line at a time, each line once
        (a token given under two names is one mask)."""
        for line in value.splitlines():
            if line.strip() and line not in self._masked:
                self._masked.add(line)
                self._print(f"::add-mask::{_escape_command_value(line)}")

    def notice(self, message: str) -> None:
        self._print(f"::notice::{_escape_command_value(message)}")

    def warning(self, message: str) -> None:
        self._print(f"::warning::{_escape_command_value(message)}")

    def error(self, message: str) -> None:
        self._print(f"::error::{_escape_command_value(message)}")

    def line(self, text: str) -> None:
        """A plain log line (a leading `::` is defused so it cannot act as a command)."""
        self._print(f" {text}" if text.startswith("::") else text)

    def open_group(self, title: str) -> None:
        self._print(f"::group::{_escape_command_value(title)}")

    def close_group(self) -> None:
        self._print("::endgroup::")

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self._print(f"::group::{_escape_command_value(title)}")
        try:
            yield
        finally:
            self._print("::endgroup::")

    def set_outputs(self, values: Mapping[str, str | int | float | None]) -> None:
        """Append outputs; multi-line values use a random heredoc delimiter."""
        for name, raw in values.items():
            if raw is None:
                continue
            value = str(raw)
            self.outputs[name] = value
            if self._output_path is None:
                continue
            with self._output_path.open("a", encoding="utf-8") as handle:
                if "\n" in value:
                    delimiter = f"amelia_{uuid.uuid4().hex}"
                    handle.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
                else:
                    handle.write(f"{name}={value}\n")

    def write_summary(self, markdown: str) -> None:
        if self._summary_path is None:
            return
        with self._summary_path.open("a", encoding="utf-8") as handle:
            handle.write(markdown.rstrip() + "\n")
