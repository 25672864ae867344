"""The reviewer: reads the change since the base ref and returns a structured verdict.

It reviews committed work (`git diff <base>...HEAD`) and whatever the developer left
uncommitted, so the pipeline works whether or not anything was committed between stages.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

from amelia.agents.agent_run import AgentRun
from amelia.agents.prompts import REVIEWER_INSTRUCTIONS, as_data, issue_section
from amelia.agents.verdict import ReviewVerdict, parse_review
from amelia.core.state import ExecutionState, ReviewResult
from amelia.core.types import StreamEvent, StreamEventType
from amelia.drivers.base import AgenticMessageType, DriverInterface
from amelia.git import Changes, collect_changes

__all__ = ["AGENT", "Reviewer", "build_review_prompt"]


AGENT = "reviewer"


def build_review_prompt(state: ExecutionState, changes: Changes) -> str:
    parts = issue_section(state.issue)
    if state.plan_markdown:
        parts += ["## Plan the change implements", as_data("plan", state.plan_markdown), ""]
    parts += [
        f"## Diff against `{changes.base_ref}`",
        as_data("diff", changes.as_text()),
        "",
        "## Your Task",
        "Review this change and return your verdict.",
    ]
    return "\n".join(parts)


class Reviewer:
    """Reviews the worktree's changes; `review()` streams `(state, event)` pairs."""

    def __init__(self, driver: DriverInterface) -> None:
        self.driver = driver

    @property
    def instructions(self) -> str:
        return REVIEWER_INSTRUCTIONS

    async def review(
        self,
        state: ExecutionState,
        *,
        workflow_id: str,
        repo_dir: Path,
        base_ref: str,
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        """Review the changes since `base_ref`; the last state holds `last_review`.

        Raises `AgentRunFailedError` when the driver ends with an error result.
        """
        changes = await collect_changes(repo_dir, base_ref)
        iteration = state.review_iteration + 1
        if changes.is_empty:
            review = ReviewResult(
                verdict="changes_requested",
                summary=f"There are no changes since {base_ref} to review.",
            )
            yield (
                state.evolve(last_review=review, review_iteration=iteration, base_ref=base_ref),
                StreamEvent(
                    type=StreamEventType.AGENT_OUTPUT,
                    content=review.summary,
                    agent=AGENT,
                    workflow_id=workflow_id,
                ),
            )
            return

        run = AgentRun(AGENT, workflow_id, state)
        async for message in self.driver.execute_agentic(
            prompt=build_review_prompt(state, changes),
            cwd=str(repo_dir),
            instructions=self.instructions,
            schema=ReviewVerdict,
        ):
            new_state, event = run.apply(message)
            if message.type == AgenticMessageType.RESULT and not message.is_error:
                new_state = run.update(
                    last_review=parse_review(message.content),
                    review_iteration=iteration,
                    base_ref=base_ref,
                )
            yield new_state, event
        run.check_finished()
