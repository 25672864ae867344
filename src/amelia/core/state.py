"""The immutable state a run carries from agent to agent."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from amelia.core.ci import CiReport
from amelia.core.types import Issue

__all__ = [
    "SEVERITY_ORDER",
    "AgentUsage",
    "CheckRun",
    "ExecutionState",
    "PersonRequest",
    "PriorFinding",
    "ReviewComment",
    "ReviewResult",
    "ReviewScope",
    "ReviewThread",
    "Severity",
    "ThreadComment",
    "ToolCall",
    "ToolResult",
    "Verdict",
]


Verdict = Literal["approved", "changes_requested"]
Severity = Literal["none", "minor", "major", "critical"]
SEVERITY_ORDER: tuple[Severity, ...] = get_args(Severity)
"""Severities from the least serious to the most."""


class ToolCall(BaseModel):
    """A tool call an agent made."""

    model_config = ConfigDict(frozen=True)

    id: str | None = None
    agent: str
    tool_name: str
    tool_input: dict[str, Any] = Field(default_factory=dict)
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))


class ToolResult(BaseModel):
    """What came back from a tool call; `is_error` marks a refused or failed call."""

    model_config = ConfigDict(frozen=True)

    call_id: str | None = None
    agent: str
    tool_name: str
    output: str = ""
    is_error: bool = False
    tool_input: dict[str, Any] | None = None
    timestamp: datetime = Field(default_factory=lambda: datetime.now(UTC))


class ReviewComment(BaseModel):
    """One finding of the reviewer, anchored to a line of the new version of a file."""

    model_config = ConfigDict(frozen=True)

    path: str
    line: int | None = Field(default=None, ge=1)
    severity: Severity = "minor"
    body: str
    suggestion: str | None = None


class ReviewResult(BaseModel):
    """The reviewer's structured verdict."""

    model_config = ConfigDict(frozen=True)

    verdict: Verdict
    severity: Severity = "none"
    summary: str
    comments: tuple[ReviewComment, ...] = ()
    fixed: tuple[int, ...] = ()
    """Ids of earlier findings (`PriorFinding.id`) the reviewer found fixed."""

    @property
    def approved(self) -> bool:
        return self.verdict == "approved"


class PriorFinding(BaseModel):
    """A finding of an earlier review of the same change that nobody has resolved yet."""

    model_config = ConfigDict(frozen=True)

    id: int
    """The id of the review comment that holds it."""
    path: str
    line: int | None = None
    severity: Severity = "minor"
    body: str


ReviewKind = Literal["full", "incremental"]


class ReviewScope(BaseModel):
    """What a review covers: the whole change since `base`, or only the commits pushed
    since the last reviewed commit `base`, with what the earlier reviews left open."""

    model_config = ConfigDict(frozen=True)

    kind: ReviewKind = "full"
    base: str
    """The commit the diff starts at: the merge base (full) or the last reviewed commit."""
    head: str
    changed_files: tuple[str, ...] = ()
    """Every file the whole change touches (context for an incremental review)."""
    open_findings: tuple[PriorFinding, ...] = ()


class PersonRequest(BaseModel):
    """What the person who started a run wrote after the command, for that run's agent.

    `text` is already sanitized (hidden text removed); `login` is who wrote it."""

    model_config = ConfigDict(frozen=True)

    login: str
    text: str


class ThreadComment(BaseModel):
    """One comment of a review thread: who wrote it and what (sanitized)."""

    model_config = ConfigDict(frozen=True)

    author: str
    body: str


class ReviewThread(BaseModel):
    """An open review thread on a pull request, as the developer gets it to address."""

    model_config = ConfigDict(frozen=True)

    id: int
    """The id of the review comment that starts the thread (replies go to it)."""
    path: str
    line: int | None = None
    diff_hunk: str = ""
    comments: tuple[ThreadComment, ...] = ()


class AgentUsage(BaseModel):
    """What one agent's run cost, summed over its driver calls."""

    model_config = ConfigDict(frozen=True)

    agent: str
    turns: int = 0
    tool_calls: int = 0
    tool_errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    duration_ms: int = 0
    model: str | None = None
    """The model the driver reported (the last one, when the agent ran several times)."""


class CheckRun(BaseModel):
    """One run of the project's test command, made by amelia itself after a developer
    round: a fact the agents did not report but amelia observed."""

    model_config = ConfigDict(frozen=True)

    command: str
    exit_code: int | None = None
    """The command's exit code; None when it was stopped at its time limit."""
    timed_out: bool = False
    timeout_seconds: float | None = None
    tail: str = ""
    """The last lines of its output (stdout and stderr together)."""
    duration_seconds: float = 0.0
    round: int = 1
    """The developer round it checked (1 for the first)."""

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def outcome(self) -> str:
        """`passed`, `failed (exit N)` or `timed out after N min`."""
        if self.timed_out:
            limit = self.timeout_seconds or self.duration_seconds
            return f"timed out after {limit / 60:g} min"
        return "passed" if self.passed else f"failed (exit {self.exit_code})"


class ExecutionState(BaseModel):
    """Everything a run knows. Immutable: agents return updated copies."""

    model_config = ConfigDict(frozen=True)

    issue: Issue | None = None
    design_context: str | None = None
    request: PersonRequest | None = None
    """Notes from the person who started the run (text after the command), for its agent."""
    threads: tuple[ReviewThread, ...] = ()
    """Open review threads the developer is asked to address (`/amelia fix`)."""
    context: str | None = None
    """Extra material for the answerer: the review thread and the file it is about."""
    answer: str | None = None
    """The answerer's reply."""
    goal: str | None = None
    plan_markdown: str | None = None
    raw_architect_output: str | None = None
    plan_path: str | None = None
    base_ref: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_results: tuple[ToolResult, ...] = ()
    developer_session_id: str | None = None
    developer_output: str | None = None
    last_review: ReviewResult | None = None
    review_iteration: int = 0
    last_check: CheckRun | None = None
    """The test command's latest run, when the project has one."""
    last_ci: CiReport | None = None
    """The repository's own CI on the latest pushed commit, when amelia looked."""
    usage: tuple[AgentUsage, ...] = ()
    last_agent: str | None = None
    """The agent that ran last (its usage is in `usage`)."""

    def evolve(self, **changes: Any) -> ExecutionState:
        """Return a copy with `changes` applied (validated like a new instance)."""
        return ExecutionState.model_validate({**self.model_dump(), **changes})

    @property
    def cost_usd(self) -> float:
        """What the agents cost so far, summed."""
        return sum(usage.cost_usd for usage in self.usage)

    @property
    def error_results(self) -> tuple[ToolResult, ...]:
        return tuple(result for result in self.tool_results if result.is_error)
