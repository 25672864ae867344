"""The developer: implements the plan in the worktree with the full tool profile.

On a later iteration it gets the reviewer's comments and resumes its own session, so it
remembers what it did; the plan is repeated anyway because not every driver keeps history.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

from loguru import logger

from amelia.agents.agent_run import AgentRun
from amelia.agents.prompts import (
    DEVELOPER_INSTRUCTIONS,
    FIX_TASK,
    as_data,
    check_section,
    ci_section,
    issue_section,
    request_section,
    with_project_instructions,
)
from amelia.core.state import ExecutionState, ReviewResult, ReviewThread
from amelia.core.types import StreamEvent
from amelia.drivers.base import AgenticMessageType, DriverInterface
from amelia.errors import AgentError, AgentRunFailedError, DriverError

__all__ = [
    "AGENT",
    "Developer",
    "build_developer_prompt",
    "render_review_feedback",
    "render_threads",
]


AGENT = "developer"


def render_review_feedback(review: ReviewResult) -> str:
    """The reviewer's verdict as text the developer can act on."""
    lines = [
        f"Verdict: {review.verdict} (severity {review.severity})",
        f"Summary: {review.summary}",
    ]
    for comment in review.comments:
        where = f"{comment.path}:{comment.line}" if comment.line else comment.path
        lines.append(f"- [{comment.severity}] {where}: {comment.body}")
        if comment.suggestion:
            lines.append(f"  Suggested replacement: {comment.suggestion}")
    return "\n".join(lines)


def render_threads(threads: tuple[ReviewThread, ...]) -> str:
    """Open review threads as text: each with its id, place, diff hunk and comments."""
    blocks: list[str] = []
    for thread in threads:
        where = f"{thread.path}:{thread.line}" if thread.line else thread.path
        lines = [f"### Thread {thread.id} on {where}"]
        if thread.diff_hunk:
            lines += ["Diff hunk:", thread.diff_hunk]
        lines += [f"@{comment.author}: {comment.body}" for comment in thread.comments]
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def build_developer_prompt(state: ExecutionState) -> str:
    """The plan (and on later rounds the review findings) as data, the notes of the person
    who asked, plus the task."""
    if not state.plan_markdown and not state.threads:
        raise AgentError(AGENT, "no plan to implement and no review thread to address")
    parts: list[str] = []
    review = state.last_review
    fixing = review is not None and not review.approved
    if review is not None and fixing:
        parts += [
            "## Review Feedback",
            "A reviewer looked at your changes and requested changes. Address every finding.",
            as_data("review", render_review_feedback(review)),
            "",
        ]
    failing = state.last_check is not None and not state.last_check.passed
    if failing:
        parts += check_section(state.last_check)
        parts += ["The test command above fails on your changes: make it pass.", ""]
    ci_failed = state.last_ci is not None and state.last_ci.failed
    if ci_failed:
        parts += ci_section(state.last_ci)
        parts += ["The repository's CI above fails on your changes: make it pass.", ""]
        failing = True
    parts += issue_section(state.issue)
    plan_location = f" (saved at `{state.plan_path}`)" if state.plan_path else ""
    if state.plan_markdown:
        parts += [f"## Plan{plan_location}", as_data("plan", state.plan_markdown), ""]
    if state.threads:
        parts += [
            "## Open Review Threads",
            "People (and earlier automated reviews) left these threads on the pull request.",
            as_data("threads", render_threads(state.threads)),
            "",
        ]
    parts += request_section(state.request)
    if fixing or failing:
        task = (
            "Fix the review findings and the failing tests or CI above; the plan is repeated "
            "for reference."
        )
    elif state.threads:
        task = FIX_TASK
    else:
        task = "Implement the plan in this repository."
    parts += ["## Your Task", task]
    return "\n".join(parts)


class Developer:
    """Implements `state.plan_markdown`; `run()` streams `(state, event)` pairs."""

    def __init__(self, driver: DriverInterface, *, project_instructions: str = "") -> None:
        """`project_instructions`: the repository's trusted instructions for this agent."""
        self.driver = driver
        self.project_instructions = project_instructions

    @property
    def instructions(self) -> str:
        return with_project_instructions(DEVELOPER_INSTRUCTIONS, self.project_instructions)

    async def run(
        self, state: ExecutionState, *, workflow_id: str, repo_dir: Path
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        """Run one development round in `repo_dir`.

        Error-flagged tool results stay in the state. Raises `AgentRunFailedError` when the
        driver ends with an error result or without any result.
        """
        prompt = build_developer_prompt(state)
        resume = state.developer_session_id
        run = AgentRun(AGENT, workflow_id, state)
        while True:
            worked = False  # anything beyond a bare error result in this attempt
            try:
                async for message in self.driver.execute_agentic(
                    prompt=prompt,
                    cwd=str(repo_dir),
                    session_id=resume,
                    instructions=self.instructions,
                ):
                    new_state, event = run.apply(message)
                    if message.type == AgenticMessageType.RESULT and not message.is_error:
                        session = message.session_id or resume
                        new_state = run.update(
                            developer_output=message.content or "",
                            developer_session_id=session,
                        )
                    worked = worked or not (
                        message.type == AgenticMessageType.RESULT and message.is_error
                    )
                    yield new_state, event
            except DriverError as error:
                if resume is None or worked:
                    raise AgentRunFailedError(AGENT, str(error)) from error
                reason = str(error)
            else:
                final = run.result
                if resume is None or worked or final is None or not final.is_error:
                    break
                if final.budget_reached:
                    break  # stopped on budget, not a session to start afresh
                reason = final.content or "error result"
            # A session the driver cannot resume (Claude Code: "No conversation found with
            # session ID", ApiDriver: DriverError) is not fatal: start afresh, once.
            logger.warning("Developer session {} not resumable: {}", resume, reason)
            resume = None
        run.check_finished()
