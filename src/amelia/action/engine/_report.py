"""How a run ends: the outcome becomes step outputs, the job summary, the final progress
update, one `::error::` line on failure, and the exit code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amelia.action.workflow_io import WorkflowIO
from amelia.errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, AmeliaError, exit_code_for
from amelia.redaction import Redactor

if TYPE_CHECKING:
    from amelia.action.modes import ModeContext, ModeOutcome

__all__ = ["report_error", "report_outcome", "report_stopped", "report_without_mode"]


def report_without_mode(io: WorkflowIO, conclusion: str, notice: str) -> int:
    """A run that ended before any mode ran (nothing to do, refused): one notice, exit 0."""
    io.notice(notice)
    io.set_outputs({"conclusion": conclusion})
    return EXIT_OK


def report_stopped(io: WorkflowIO, reason: str) -> int:
    """The job was cancelled before a mode could report it."""
    io.error(f"amelia failed: {reason}")
    io.write_summary(f"## amelia: failure\n\n**Reason:** {reason}\n")
    io.set_outputs({"conclusion": "failure"})
    return EXIT_FAILED


def report_error(io: WorkflowIO, redactor: Redactor, error: AmeliaError) -> int:
    """Bad input (exit 2), or GitHub or git failing outside a mode (the permission check,
    a refusal's reply): one clear line, never a traceback."""
    code = exit_code_for(error)
    message = redactor.redact(error.message)
    io.set_outputs({"conclusion": "failure"})
    if code == EXIT_BAD_INPUT:
        io.error(message)
        return code
    io.error(f"amelia failed: {message}")
    io.write_summary(f"## amelia: failure\n\n**Reason:** {message}\n")
    return code


async def report_outcome(mode_name: str, ctx: ModeContext, outcome: ModeOutcome) -> int:
    """Finish the progress comment, write outputs and summary; 1 on failure, else 0."""
    from amelia.action.checkout import held_back_lines, held_back_summary
    from amelia.action.engine._summary import render_summary, total_cost

    io, redactor = ctx.io, ctx.redactor
    cost = total_cost(outcome.state)
    reason = redactor.redact(outcome.failure_reason) if outcome.failure_reason else None
    conclusion = outcome.conclusion
    if ctx.dry_run and conclusion == "success":
        conclusion = "dry_run"
    notes = ctx.checkout.publisher.notes()
    unpushed = ctx.checkout.publisher.unpushed
    patch = unpushed.comment_markdown(redactor) if unpushed is not None else None
    held = ctx.checkout.publisher.held_back.work
    rest_pushed = unpushed is None
    block = "\n".join(held_back_lines(held, rest_pushed=rest_pushed)) if held is not None else None
    sections = tuple(section for section in (block, patch) if section)
    failed = conclusion in ("failure", "no_changes")
    progress = ctx.progress.tracker
    if progress is not None:
        await progress.finish(
            "failed" if failed else "succeeded",
            cost,
            links=outcome.links,
            failure_reason=reason,
            notes=notes,
            failure_details=outcome.failure_details,
            sections=sections,
        )
        if progress.update_error is not None:
            # Nobody would learn how the run ended: fail it where people still look.
            note = redactor.redact(
                f"the progress comment could not be posted: {progress.update_error}"
            )
            reason = f"{reason}; {note}" if failed and reason else note
            conclusion, failed = "failure", True
    outputs = {
        "conclusion": conclusion,
        **({"cost_usd": f"{cost:.4f}"} if cost is not None else {}),
        **outcome.outputs,
    }
    for warning in outcome.warnings:
        io.warning(redactor.redact(warning))
    if outcome.notice:
        io.notice(redactor.redact(outcome.notice))
    io.set_outputs(outputs)
    summary = render_summary(
        mode_name,
        conclusion,
        outputs,
        outcome.state,
        redactor,
        failure_reason=reason,
        warnings=outcome.warnings,
        details=outcome.summary,
    )
    if notes:
        summary += "\n" + "\n".join(f"- {redactor.redact(note)}" for note in notes) + "\n"
    if held is not None:
        summary += "\n" + redactor.redact(held_back_summary(held))
    if unpushed is not None:
        summary += "\n" + unpushed.summary_markdown(redactor)
    io.write_summary(summary)
    if failed:
        io.error(f"amelia {mode_name} failed: {reason or 'unknown error'}")
        return EXIT_FAILED
    return EXIT_OK
