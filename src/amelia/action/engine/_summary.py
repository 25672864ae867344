"""The job summary: what ran, how it ended, and what each agent used."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from amelia.core.state import AgentUsage, ExecutionState
from amelia.redaction import Redactor
from amelia.text import code_fence, inline_code

__all__ = ["render_summary", "total_cost"]


def total_cost(state: ExecutionState | None) -> float | None:
    """Every agent's cost, summed (also across drivers); None when no agent ran."""
    if state is None or not state.usage:
        return None
    return state.cost_usd


def _usage_row(usage: AgentUsage) -> str:
    cells = (
        usage.agent,
        usage.model or "(driver default)",
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
    warnings: Sequence[str] = (),
    details: str = "",
) -> str:
    """Markdown for `GITHUB_STEP_SUMMARY`, redacted: the conclusion, the reason of a
    failure, `warnings`, the mode's own `details` (Markdown), the outputs, the test run
    and what each agent used."""
    lines = [f"## amelia `{command}`: {conclusion}", ""]
    if failure_reason:
        lines += [f"**Reason:** {failure_reason}", ""]
    lines += [line for warning in warnings for line in (f"> **Warning:** {warning}", "")]
    if details.strip():
        lines += [details.strip(), ""]
    shown = {k: v for k, v in outputs.items() if k != "conclusion" and v}
    if shown:
        lines += ["| output | value |", "|---|---|"]
        lines += [f"| `{name}` | `{value}` |" for name, value in shown.items()]
        lines.append("")
    check = state.last_check if state is not None else None
    if check is not None:
        text = check.tail.rstrip() or "(no output)"
        fence = code_fence(text)
        lines += [
            f"**Tests:** {inline_code(check.command)} — {check.outcome} "
            f"(run by amelia after round {check.round}, {check.duration_seconds:.1f} s)",
            "",
            "<details>",
            "<summary>Last lines of its output</summary>",
            "",
            fence,
            text,
            fence,
            "",
            "</details>",
            "",
        ]
    if state is not None and state.last_ci is not None:
        from amelia.ci.render import ci_lines

        ci = state.last_ci
        if ci.note in warnings:  # said once, as a warning above
            ci = ci.model_copy(update={"note": None})
        lines += [*ci_lines(ci), ""]
    if state is not None and state.usage:
        lines += [
            "| agent | model | turns | tool calls | tool errors | tokens in / out | cost "
            "| duration |",
            "|---|---|---|---|---|---|---|---|",
            *(_usage_row(usage) for usage in state.usage),
            "",
        ]
    return redactor.redact("\n".join(lines))
