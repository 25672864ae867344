"""Types shared by every layer: stream events, driver keys, issues and profiles."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "DEFAULT_DRIVER",
    "AgentProfile",
    "AgentRole",
    "DriverType",
    "Issue",
    "PathInstruction",
    "Profile",
    "ReviewOptions",
    "StreamEvent",
    "StreamEventType",
    "ToolProfileName",
]


DriverType = Literal["cli:claude", "api:openai", "api:openrouter", "cli", "api"]
"""The driver keys the registry knows out of the box."""

DEFAULT_DRIVER: DriverType = "cli:claude"
"""The driver used when nobody chooses one."""

ToolProfileName = Literal["read_only", "full", "read_files"]
"""Which tools a driver exposes to an agent: read-only exploration (files and read-only
commands), full editing, or `read_files`: read-only file tools confined to the working
directory and nothing else (no shell, no network), for content that must stay data."""

AgentRole = Literal["architect", "developer", "reviewer", "answerer"]
"""The agents of the pipeline; the answerer answers questions about the repository."""


class StreamEventType(StrEnum):
    """What happened, as seen from outside an agent."""

    CLAUDE_THINKING = "claude_thinking"
    CLAUDE_TOOL_CALL = "claude_tool_call"
    CLAUDE_TOOL_RESULT = "claude_tool_result"
    AGENT_OUTPUT = "agent_output"
    STAGE_STARTED = "stage_started"
    STAGE_COMPLETED = "stage_completed"
    WORKFLOW_COMPLETED = "workflow_completed"
    WORKFLOW_FAILED = "workflow_failed"


def _new_event_id() -> str:
    return uuid.uuid4().hex


def _now() -> datetime:
    return datetime.now(UTC)


class StreamEvent(BaseModel):
    """Agent → outside boundary: one observable step of a run, handed to sinks."""

    model_config = ConfigDict(frozen=True)

    id: str = Field(default_factory=_new_event_id)
    type: StreamEventType
    content: str | None = None
    timestamp: datetime = Field(default_factory=_now)
    agent: str
    workflow_id: str
    tool_name: str | None = None
    tool_input: dict[str, Any] | None = None
    is_error: bool = False


class Issue(BaseModel):
    """The work item a run is about. Title and body are untrusted text."""

    model_config = ConfigDict(frozen=True)

    id: str
    title: str
    description: str = ""
    number: int | None = None
    author: str | None = None
    url: str | None = None


class AgentProfile(BaseModel):
    """One agent's own driver, model and turn limit (None: the profile's), and the trusted
    project instructions added to its own."""

    model_config = ConfigDict(frozen=True)

    driver: DriverType | None = None
    model: str | None = None
    max_turns: int | None = Field(default=None, ge=1)
    instructions: str = ""


class PathInstruction(BaseModel):
    """Reviewer instructions for changes to files matching `path` (fnmatch: `*` matches
    `/` too)."""

    model_config = ConfigDict(frozen=True)

    path: str
    instructions: str


class ReviewOptions(BaseModel):
    """What the reviewer is shown: paths left out of its diff, instructions by path."""

    model_config = ConfigDict(frozen=True)

    ignore_paths: tuple[str, ...] = ()
    path_instructions: tuple[PathInstruction, ...] = ()


class Profile(BaseModel):
    """How a run is configured: which driver and model, and the pipeline's limits."""

    model_config = ConfigDict(frozen=True)

    name: str = "default"
    driver: DriverType = DEFAULT_DRIVER
    model: str | None = None
    max_review_iterations: int = Field(default=3, ge=1, le=20)
    max_turns: int | None = Field(default=None, ge=1)
    plan_path_pattern: str = "docs/plans/{date}-issue-{number}-{slug}.md"
    timeout_seconds: float = Field(default=1800.0, gt=0)
    agents: dict[AgentRole, AgentProfile] = Field(default_factory=dict)
    """Per-agent settings; an agent not listed uses the profile's driver, model and turns."""
    review: ReviewOptions = Field(default_factory=ReviewOptions)
    max_cost_usd: float | None = Field(default=None, gt=0)
    """The run stops once the agents' summed cost reaches this, within an agent too."""

    def agent(self, role: AgentRole) -> AgentProfile:
        """`role`'s settings with the profile's filled in: its driver, else the profile's;
        its model, else the profile's when both use the same driver (else the driver's
        default); its turn limit, else the profile's."""
        own = self.agents.get(role) or AgentProfile()
        driver = own.driver or self.driver
        model = own.model or (self.model if driver == self.driver else None)
        return AgentProfile(
            driver=driver,
            model=model,
            max_turns=own.max_turns or self.max_turns,
            instructions=own.instructions,
        )
