"""The job summary: what ran, how it ended, and what each agent used."""

from __future__ import annotations

from collections.abc import Mapping

from amelia.core.state import AgentUsage, ExecutionState
from amelia.redaction import Redactor

__all__ = ["render_summary", "total_cost"]


def total_cost(state: ExecutionState | None) -> float | None:
    if state is None or not state.usage:
        return None
    return sum(usage.cost_usd for usage in state.usage)


def _usage_row(usage: AgentUsage) -> str:
    cells = (
        usage.agent,
        str(usage.turns),
        str(usage.tool_calls),
        str(usage.tool_errors),
        f"{usage.input_tokens:,} / {usage.output_tokens:,}",
        f"${usage.cost_usd:.4f}",
        f"{usage.duration_ms / 1000:.1f} s",
    )
    return "| " + " | ".join(cells) + " |"


def render_summary(
    command: str,
    conclusion: str,
    outputs: Mapping[str, str],
    state: ExecutionState | None,
    redactor: Redactor,
    *,
    failure_reason: str | None = None,
) -> str:
    """Markdown for `GITHUB_STEP_SUMMARY`, redacted."""
    lines = [f"## amelia `{command}`: {conclusion}", ""]
    if failure_reason:
        lines += [f"**Reason:** {failure_reason}", ""]
    shown = {k: v for k, v in outputs.items() if k != "conclusion" and v}
    if shown:
        lines += ["| output | value |", "|---|---|"]
        lines += [f"| `{name}` | `{value}` |" for name, value in shown.items()]
        lines.append("")
    if state is not None and state.usage:
        lines += [
            "| agent | turns | tool calls | tool errors | tokens in / out | cost | duration |",
            "|---|---|---|---|---|---|---|",
            *(_usage_row(usage) for usage in state.usage),
            "",
        ]
    return redactor.redact("\n".join(lines))
