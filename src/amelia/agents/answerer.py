"""The answerer: explores the repository read-only and answers one question in markdown.

It gets the issue or pull request the question was asked on, the pull's diff when there
is one, the review thread and the file it is about when the question was asked in a
thread, and the question itself, marked with the login of the person who asked.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from pathlib import Path

from amelia.agents.agent_run import AgentRun
from amelia.agents.prompts import (
    ANSWERER_INSTRUCTIONS,
    as_data,
    issue_section,
    request_section,
    with_project_instructions,
)
from amelia.core.state import ExecutionState
from amelia.core.types import StreamEvent
from amelia.drivers.base import AgenticMessageType, DriverInterface
from amelia.errors import AgentError

__all__ = ["AGENT", "Answerer", "build_answer_prompt"]

AGENT = "answerer"
MAX_DIFF_CHARS = 60_000
"""The pull's diff is context, not the subject: a longer one is cut (the agent can read
the files themselves)."""


def build_answer_prompt(state: ExecutionState, *, diff_text: str | None = None) -> str:
    """The place the question was asked (issue or pull, its diff, the thread), then the
    question as the request of the person who asked."""
    if state.request is None or not state.request.text.strip():
        raise AgentError(AGENT, "no question to answer")
    parts = issue_section(state.issue)
    if diff_text:
        cut = diff_text[:MAX_DIFF_CHARS]
        more = "" if len(diff_text) <= MAX_DIFF_CHARS else "\n[the rest of the diff is cut]"
        parts += ["## The pull request's diff", as_data("diff", cut + more), ""]
    if state.context:
        parts += [
            "## The review thread the question was asked in",
            as_data("thread", state.context),
            "",
        ]
    parts += request_section(state.request)
    parts += ["## Your Task", "Answer the question in the request above."]
    return "\n".join(parts)


class Answerer:
    """Answers `state.request`; `answer()` streams `(state, event)` pairs, the last state
    holding `answer`."""

    def __init__(self, driver: DriverInterface, *, project_instructions: str = "") -> None:
        """`project_instructions`: the repository's trusted instructions for this agent."""
        self.driver = driver
        self.project_instructions = project_instructions

    @property
    def instructions(self) -> str:
        return with_project_instructions(ANSWERER_INSTRUCTIONS, self.project_instructions)

    async def answer(
        self,
        state: ExecutionState,
        *,
        workflow_id: str,
        repo_dir: Path,
        diff_text: str | None = None,
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        """Raises `AgentRunFailedError` when the driver ends with an error or no answer."""
        run = AgentRun(AGENT, workflow_id, state)
        async for message in self.driver.execute_agentic(
            prompt=build_answer_prompt(state, diff_text=diff_text),
            cwd=str(repo_dir),
            instructions=self.instructions,
        ):
            new_state, event = run.apply(message)
            if message.type == AgenticMessageType.RESULT and not message.is_error:
                new_state = run.update(answer=(message.content or "").strip())
            yield new_state, event
        run.check_finished()
        if not (run.state.answer or "").strip():
            raise AgentError(AGENT, "the answer was empty")
