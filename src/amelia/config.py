"""Settings of an Action run: the step's inputs (`INPUT_*`) and the runner's `GITHUB_*` facts.

GitHub hands a container action every declared input as an `INPUT_<NAME>` variable, with an
empty string for inputs nobody set, so empty values fall back to the defaults here.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Annotated, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from amelia.core.types import DEFAULT_DRIVER, DriverType
from amelia.errors import ConfigError

ReviewEvent = Literal["COMMENT", "APPROVE", "REQUEST_CHANGES", "AUTO"]

_SAFE_PREFIX = re.compile(r"^[A-Za-z0-9._/-]*$")
_PHRASE = re.compile(r"^\S{1,40}$")


class ActionInputs(BaseSettings):
    """The Action's inputs, read from `INPUT_*` environment variables."""

    model_config = SettingsConfigDict(
        env_prefix="INPUT_",
        case_sensitive=False,
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
    )

    github_token: SecretStr | None = None
    driver: DriverType = DEFAULT_DRIVER
    model: str | None = None
    anthropic_api_key: SecretStr | None = None
    claude_code_oauth_token: SecretStr | None = None
    openai_api_key: SecretStr | None = None
    openrouter_api_key: SecretStr | None = None
    trigger_phrase: str = "/amelia"
    label_trigger: str = "amelia"
    plan_dir: str = "docs/plans"
    branch_prefix: str = "amelia/"
    max_review_iterations: int = Field(default=3, ge=1, le=10)
    max_turns: int | None = Field(default=None, ge=1, le=500)
    allowed_users: Annotated[tuple[str, ...], NoDecode] = ()
    review_pull_requests: bool = True
    review_drafts: bool = False
    review_event: ReviewEvent = "COMMENT"
    max_issues: int = Field(default=0, ge=0, le=50)
    timeout_minutes: float = Field(default=30.0, gt=0, le=360)
    dry_run: bool = False

    @field_validator("allowed_users", mode="before")
    @classmethod
    def _split_users(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(user.strip().lstrip("@") for user in re.split(r"[,\s]+", value) if user)
        return value

    @field_validator("review_event", mode="before")
    @classmethod
    def _upper(cls, value: object) -> object:
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("trigger_phrase", "label_trigger")
    @classmethod
    def _single_word(cls, value: str) -> str:
        if not _PHRASE.match(value):
            raise ValueError("must be one word of at most 40 characters")
        return value

    @field_validator("plan_dir")
    @classmethod
    def _relative_dir(cls, value: str) -> str:
        path = PurePosixPath(value.strip())
        if (
            not value.strip()
            or path.is_absolute()
            or ".." in path.parts
            or ".git" in path.parts
            or not _SAFE_PREFIX.match(value)
        ):
            raise ValueError(
                "must be a relative directory inside the repository "
                "(letters, digits, '.', '_', '-', '/'; no '..' and no .git)"
            )
        return str(path)

    @field_validator("branch_prefix")
    @classmethod
    def _branch_prefix(cls, value: str) -> str:
        if (
            not _SAFE_PREFIX.match(value)
            or ".." in value
            or value.startswith(("-", "/"))
            or "//" in value
        ):
            raise ValueError(
                "must contain only letters, digits, '.', '_', '-' and '/', "
                "without '..', '//' or a leading '-' or '/'"
            )
        return value

    def secret_values(self) -> list[str]:
        """Every secret input's value, for masking and redaction."""
        secrets = (
            self.github_token,
            self.anthropic_api_key,
            self.claude_code_oauth_token,
            self.openai_api_key,
            self.openrouter_api_key,
        )
        return [s.get_secret_value() for s in secrets if s and s.get_secret_value()]


class RunnerContext(BaseSettings):
    """What the GitHub runner tells a container action through `GITHUB_*` variables."""

    model_config = SettingsConfigDict(
        env_prefix="GITHUB_", case_sensitive=False, env_ignore_empty=True, extra="ignore"
    )

    event_name: str | None = None
    event_path: str | None = None
    workspace: str = "/github/workspace"
    repository: str | None = None
    api_url: str = "https://api.github.com"
    server_url: str = "https://github.com"
    run_id: str | None = None
    output: str | None = None
    step_summary: str | None = None
    actor: str | None = None

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


def describe_validation_error(error: ValidationError, prefix: str = "INPUT_") -> str:
    """One line per bad field, naming the environment variable a user sets."""
    lines = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "input"
        lines.append(f"{prefix}{field.upper()}: {problem['msg']}")
    return "; ".join(lines)


def load_inputs() -> ActionInputs:
    """Read the inputs, turning validation failures into one clear ConfigError."""
    try:
        return ActionInputs()
    except ValidationError as error:
        raise ConfigError(f"Invalid action input: {describe_validation_error(error)}") from None


def load_runner() -> RunnerContext:
    try:
        return RunnerContext()
    except ValidationError as error:
        raise ConfigError(
            f"Invalid runner variable: {describe_validation_error(error, 'GITHUB_')}"
        ) from None
