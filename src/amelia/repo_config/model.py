"""The repository's own configuration file (`.github/amelia.yml`), as a pydantic model.

Every key is optional and unknown keys are refused (`extra="forbid"`), so a typo is an
error naming the key instead of a setting silently ignored. The file is trusted text: it
is read from the default branch (or a pull request's base), never from work under review.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictInt

from amelia.ci.config import CiConfig
from amelia.core.types import DriverType
from amelia.mcp.config import McpConfig

__all__ = [
    "DEFAULT_CONFIG_FILE",
    "MAX_INLINE_INSTRUCTIONS_CHARS",
    "MAX_INSTRUCTIONS_FILES",
    "MAX_PATH_INSTRUCTIONS",
    "AgentConfig",
    "AgentsConfig",
    "PathInstruction",
    "RepoConfig",
    "ReviewConfig",
    "ScanConfig",
]

DEFAULT_CONFIG_FILE = ".github/amelia.yml"
"""Where the file is looked for unless the `config_file` input names another path."""

MAX_INLINE_INSTRUCTIONS_CHARS = 4_000
"""Upper bound of each `instructions` text written in the file itself."""

MAX_INSTRUCTIONS_FILES = 8
"""Upper bound of the `instructions_files` list."""

MAX_PATH_INSTRUCTIONS = 50
"""Upper bound of `review.path_instructions` entries."""

_MAX_PATTERN_CHARS = 200
_MAX_PATTERNS = 100
_MAX_LABEL_CHARS = 50
"""GitHub's longest label name."""
_MAX_PREFERRED_LABELS = 20


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _pattern(value: str) -> str:
    """A repository path pattern: relative, no `..`, not empty."""
    text = value.strip().removeprefix("./")
    if not text:
        raise ValueError("must not be empty")
    if len(text) > _MAX_PATTERN_CHARS:
        raise ValueError(f"must be at most {_MAX_PATTERN_CHARS} characters")
    if text.startswith("/") or ".." in text.split("/"):
        raise ValueError("must be a path relative to the repository root, without '..'")
    return text


def _login(value: str) -> str:
    login = value.strip().lstrip("@")
    if not login or any(c.isspace() for c in login):
        raise ValueError("must be a GitHub login, e.g. renovate[bot]")
    return login


def _file(value: str) -> str:
    path = _pattern(value)
    if any(c in path for c in "*?["):
        raise ValueError("must name a file, not a pattern")
    return path


def _label(value: str) -> str:
    label = value.strip()
    if not label or len(label) > _MAX_LABEL_CHARS:
        raise ValueError(f"must be a label name of 1 to {_MAX_LABEL_CHARS} characters")
    return label


RepoPattern = Annotated[str, AfterValidator(_pattern)]
RepoFile = Annotated[str, AfterValidator(_file)]
Login = Annotated[str, AfterValidator(_login)]
LabelName = Annotated[str, AfterValidator(_label)]


class AgentConfig(_Strict):
    """One agent's own driver, model, turn limit and extra instructions."""

    driver: DriverType | None = None
    model: str | None = Field(default=None, min_length=1, max_length=200)
    max_turns: StrictInt | None = Field(default=None, ge=1, le=500)
    instructions: str = Field(default="", max_length=MAX_INLINE_INSTRUCTIONS_CHARS)


class AgentsConfig(_Strict):
    architect: AgentConfig = Field(default_factory=AgentConfig)
    developer: AgentConfig = Field(default_factory=AgentConfig)
    reviewer: AgentConfig = Field(default_factory=AgentConfig)
    answerer: AgentConfig = Field(default_factory=AgentConfig)
    """The agent that answers `/amelia ask`."""


class PathInstruction(_Strict):
    """Instructions for the reviewer when the change touches files matching `path`."""

    path: RepoPattern
    instructions: str = Field(min_length=1, max_length=2_000)


class ReviewConfig(_Strict):
    path_instructions: tuple[PathInstruction, ...] = Field(
        default=(), max_length=MAX_PATH_INSTRUCTIONS
    )
    ignore_paths: tuple[RepoPattern, ...] = Field(default=(), max_length=_MAX_PATTERNS)
    """Left out of the reviewer's diff (git pathspec patterns: `*` also matches `/`)."""
    skip_authors: tuple[Login, ...] = Field(default=(), max_length=_MAX_PATTERNS)
    """Logins whose pull requests are never reviewed automatically."""
    allowed_bots: tuple[Login, ...] = Field(default=(), max_length=_MAX_PATTERNS)
    """Bot logins whose pull requests are reviewed automatically."""


class ScanConfig(_Strict):
    """What a scheduled scan hands out, and in which order (see docs/configuration.md)."""

    limit: StrictInt | None = Field(default=None, ge=1)
    """At most this many waiting issues per scan (a whole number: `true` or `5.0` is
    refused, not read as 1 or 5), never more than 256 (GitHub's matrix
    limit: a larger value is capped with a warning); None: the `scan_limit` input."""
    prefer_labels: tuple[LabelName, ...] = Field(default=(), max_length=_MAX_PREFERRED_LABELS)
    """Issues with these labels are handed out first, the first label listed first."""
    prefer_thumbs_up: bool = False
    """Within each group, issues with more 👍 reactions first."""


class RepoConfig(_Strict):
    """`.github/amelia.yml`. A missing file is `RepoConfig()`: every default."""

    instructions: str = Field(default="", max_length=MAX_INLINE_INSTRUCTIONS_CHARS)
    """Added to every agent's instructions, as trusted text."""
    instructions_files: tuple[RepoFile, ...] | None = Field(
        default=None, max_length=MAX_INSTRUCTIONS_FILES
    )
    """Files read from the same trusted commit and added to every agent's instructions;
    None: `AGENTS.md`, plus `CLAUDE.md` for drivers other than Claude Code."""
    agents: AgentsConfig = Field(default_factory=AgentsConfig)
    review: ReviewConfig = Field(default_factory=ReviewConfig)
    max_cost_usd: float | None = Field(default=None, gt=0, le=10_000, allow_inf_nan=False)
    """The run stops once the agents' summed cost reaches this, within an agent too."""
    setup: str | None = Field(default=None, min_length=1, max_length=4_000)
    """Prepares the container before the developer's first round (see docs/toolchain.md):
    a command line, or a script's path read from the default branch."""
    setup_timeout_minutes: float | None = Field(default=None, gt=0, le=360, allow_inf_nan=False)
    test_command: str | None = Field(default=None, min_length=1, max_length=4_000)
    """Run by amelia after every developer round, as evidence for the review."""
    test_timeout_minutes: float | None = Field(default=None, gt=0, le=360, allow_inf_nan=False)
    scan: ScanConfig = Field(default_factory=ScanConfig)
    """How many waiting issues a scheduled scan hands out, and which first."""
    mcp: McpConfig = Field(default_factory=McpConfig)
    """MCP servers amelia starts for the agents, and which agent gets which of their tools
    (see `amelia.mcp.config`)."""
    ci: CiConfig = Field(default_factory=CiConfig)
    """Which of the repository's workflows amelia runs on its pushed commits, and how long
    it waits for them (see `amelia.ci`)."""
