"""Figures, their targets, the machine they were measured on, and the table/JSON they make."""

from __future__ import annotations

import os
import platform
import statistics
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Target(BaseModel):
    """`value <= limit` (or `>=`) for the figure to pass."""

    model_config = ConfigDict(frozen=True)

    limit: float
    op: Literal["<=", ">="] = "<="

    def met_by(self, value: float) -> bool:
        return value <= self.limit if self.op == "<=" else value >= self.limit

    def describe(self, unit: str) -> str:
        return f"{self.op} {self.limit:g} {unit}".rstrip()


class Figure(BaseModel):
    """One measured number (a median when `samples` holds more than one run)."""

    model_config = ConfigDict(frozen=True)

    benchmark: str
    name: str
    value: float
    unit: str
    target: Target | None = None
    samples: tuple[float, ...] = ()
    note: str = ""

    @property
    def passed(self) -> bool | None:
        return None if self.target is None else self.target.met_by(self.value)

    @classmethod
    def median_of(
        cls,
        benchmark: str,
        name: str,
        samples: Sequence[float],
        unit: str,
        target: Target | None = None,
        note: str = "",
    ) -> Figure:
        """The median of `samples` as the value, with every sample kept."""
        return cls(
            benchmark=benchmark,
            name=name,
            value=median(samples),
            unit=unit,
            target=target,
            samples=tuple(samples),
            note=note,
        )


class Machine(BaseModel):
    """Where the figures were measured."""

    model_config = ConfigDict(frozen=True)

    cpus: int
    cpu_model: str
    memory_gb: float
    python: str
    platform: str
    date: str


class Report(BaseModel):
    """A whole benchmark run, as written to JSON."""

    machine: Machine
    quick: bool
    repetitions: int
    figures: list[Figure] = Field(default_factory=list)
    skipped: dict[str, str] = Field(default_factory=dict)
    """Benchmarks that could not run here, with the reason."""
    notes: dict[str, list[str]] = Field(default_factory=dict)
    """Findings next to the figures (e.g. the slowest imports)."""


def median(samples: Sequence[float]) -> float:
    return float(statistics.median(samples))


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return 0.0


def this_machine() -> Machine:
    return Machine(
        cpus=os.cpu_count() or 0,
        cpu_model=_cpu_model(),
        memory_gb=_memory_gb(),
        python=sys.version.split()[0],
        platform=platform.platform(),
        date=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
    )


def _format_value(value: float, unit: str) -> str:
    if unit in ("requests", "edits", "bytes", "tokens", "issues", "pages", "runs"):
        return f"{value:,.0f}"
    if unit == "x":
        return f"{value:.3f}"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def render_table(report: Report) -> str:
    """A Markdown table: benchmark, figure, value, target, verdict."""
    rows = [
        "| Benchmark | Figure | Value | Target | Met |",
        "|---|---|---|---|---|",
    ]
    for figure in report.figures:
        target = figure.target.describe(figure.unit) if figure.target else ""
        verdict = {True: "yes", False: "**no**", None: ""}[figure.passed]
        value = f"{_format_value(figure.value, figure.unit)} {figure.unit}".rstrip()
        name = f"{figure.name} ({figure.note})" if figure.note else figure.name
        rows.append(f"| {figure.benchmark} | {name} | {value} | {target} | {verdict} |")
    for name, reason in report.skipped.items():
        rows.append(f"| {name} | not measured: {reason} | | | |")
    return "\n".join(rows)


def render_machine(machine: Machine) -> str:
    return (
        f"{machine.cpus} CPUs ({machine.cpu_model}), {machine.memory_gb:g} GB RAM, "
        f"Python {machine.python}, {machine.platform}, {machine.date}"
    )
