"""The settings of a run, read once from the process environment: nothing else reads it.

`load_settings()` builds one `Settings` from a mapping of environment variables: the
Action's inputs (`INPUT_*`), the runner's facts (`GITHUB_*`, `RUNNER_TEMP`), amelia's own
variables (`AMELIA_*`, among them git's retries), the GitHub client's tuning
(`AMELIA_GITHUB_*`), the token, the
scratch paths, and the environment child processes start from. Every other module gets
what it needs from that object (or from a mapping handed to it explicitly), so how the
environment is read, and what secrets it may hold, is decided here alone.

GitHub hands a container action every declared input as an `INPUT_<NAME>` variable, with an
empty string for inputs nobody set, so empty values fall back to the defaults here.
Invalid values raise `ConfigError` with one line naming the variable (exit code 2).
"""

from __future__ import annotations

import os
import re
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self
from urllib.parse import urlsplit

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    ValidationError,
    field_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)
from pydantic_settings.sources.utils import parse_env_vars

from amelia.core.types import DEFAULT_DRIVER, DriverType
from amelia.errors import BranchNameError, ConfigError
from amelia.git.names import validate_branch_name
from amelia.git.runner import NetworkRetry
from amelia.github.options import DEFAULT_TIMEOUT, RetryPolicy, ReviewEvent
from amelia.isolation.handoff import handed_over_secrets
from amelia.redaction import Redactor, secret_values

if TYPE_CHECKING:
    from amelia.drivers.runtime import DriverEnvironment

__all__ = [
    "CONTAINER_HOME",
    "GATEWAY_TOKEN_VARIABLE",
    "MODEL_KEY_VARIABLES",
    "ActionInputs",
    "AmeliaVariables",
    "GitHubTuning",
    "ReviewEventSetting",
    "ReviewScopeSetting",
    "RunnerContext",
    "Settings",
    "describe_validation_error",
    "driver_environment",
    "load_inputs",
    "load_runner",
    "load_settings",
    "process_environment",
    "replaced_process_environment",
    "runner_files",
]

ReviewEventSetting = Literal[ReviewEvent, "AUTO"]
"""The `review_event` input: a GitHub review event, or AUTO (the verdict decides)."""

ReviewScopeSetting = Literal["auto", "full", "incremental"]
"""The `review_scope` input: what a review of a pull request covers (see the review mode)."""

CONTAINER_HOME = Path("/github/home")
"""The one directory a container action shares with the job's later steps."""

MODEL_KEY_VARIABLES: dict[str, str] = {
    "anthropic_api_key": "ANTHROPIC_API_KEY",
    "claude_code_oauth_token": "CLAUDE_CODE_OAUTH_TOKEN",
    "openai_api_key": "OPENAI_API_KEY",
    "openrouter_api_key": "OPENROUTER_API_KEY",
}
"""Key inputs, and the variable each model SDK reads the key from."""

GATEWAY_TOKEN_VARIABLE = "ANTHROPIC_AUTH_TOKEN"  # noqa: S105 (a name, not a secret)
"""The bearer token of an LLM gateway at ANTHROPIC_BASE_URL (no input: set in `env:`)."""

_MODEL_CONNECTION_VARIABLES = (
    *MODEL_KEY_VARIABLES.values(),
    GATEWAY_TOKEN_VARIABLE,
    "ANTHROPIC_BASE_URL",
    "OPENAI_BASE_URL",
    "OPENROUTER_BASE_URL",
)
"""Where the model SDKs look for their key and their server."""

_SAFE_PREFIX = re.compile(r"^[A-Za-z0-9._/-]*$")
_PHRASE = re.compile(r"^\S{1,40}$")
_DIGITS = re.compile(r"^\s*[0-9]+\s*$")
_THROTTLE_OFF = ("0", "false", "no")


class _MappingSource(EnvSettingsSource):
    """pydantic-settings' environment source, reading a given mapping instead of os.environ."""

    def __init__(self, settings_cls: type[BaseSettings], environ: Mapping[str, str]) -> None:
        self._environ = environ
        super().__init__(settings_cls)

    def _load_env_vars(self) -> Mapping[str, str | None]:
        return parse_env_vars(
            self._environ, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
        )


class _FromEnvironment(BaseSettings):
    """Settings read from an explicit mapping (`from_environ`), never implicitly. Names are
    matched whatever their case, and an empty variable means "not set"."""

    model_config = SettingsConfigDict(case_sensitive=False, env_ignore_empty=True, extra="ignore")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Self:
        """Read the fields from `environ`; raises pydantic's `ValidationError`."""
        return cls(**_MappingSource(cls, environ)())


class ActionInputs(_FromEnvironment):
    """The Action's inputs, read from `INPUT_*` environment variables.

    A runner passes every input declared in `action.yml`, with its default when the
    workflow does not set it; `Settings.environ` keeps the raw values for telling the two
    apart.
    """

    model_config = SettingsConfigDict(env_prefix="INPUT_", frozen=True)

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
    review_forks: bool = False
    """Review `pull_request_target` events: runs with secrets, the head only as data."""
    review_event: ReviewEventSetting = "COMMENT"
    review_scope: ReviewScopeSetting = "auto"
    max_issues: int = Field(default=0, ge=0, le=50)
    scan_limit: int = Field(default=20, ge=1)
    """At most this many waiting issues one scan hands out (above 256: capped, warned)."""
    timeout_minutes: float = Field(default=30.0, gt=0, le=360, allow_inf_nan=False)
    dry_run: bool = False
    record: bool = True
    """Leave a redacted recording of the run for `amelia replay` (`amelia.replay`)."""
    setup_script: str | None = None
    """A command line, or a script's path in the repository, run before any agent."""
    setup_timeout_minutes: float = Field(default=10.0, gt=0, le=360, allow_inf_nan=False)
    test_command: str | None = None
    """Run by amelia after every developer round; its result is evidence for the review."""
    test_timeout_minutes: float = Field(default=10.0, gt=0, le=360, allow_inf_nan=False)
    config_file: str = ".github/amelia.yml"
    max_cost_usd: float | None = Field(default=None, gt=0, le=10_000, allow_inf_nan=False)
    mcp_secrets: SecretStr | None = None
    """`NAME=value` lines: the secrets the MCP servers of the configuration file name."""

    @field_validator("config_file")
    @classmethod
    def _config_file(cls, value: str) -> str:
        """A file inside the repository, read from a trusted commit (see docs/configuration.md)."""
        path = PurePosixPath(value.strip())
        if not value.strip() or path.is_absolute() or ".." in path.parts:
            raise ValueError("must be a path relative to the repository root, without '..'")
        return str(path)

    @field_validator(
        "max_review_iterations", "max_turns", "max_issues", "scan_limit", mode="before"
    )
    @classmethod
    def _whole_number(cls, value: object) -> object:
        """Counts are written in decimal digits: `5.0`, `1_0`, `+5` or `true` is refused,
        not read as 5, 10 or 1."""
        if isinstance(value, bool) or (isinstance(value, str) and not _DIGITS.match(value)):
            raise ValueError(f"must be a whole number written in digits, like 20, not {value!r}")
        return value

    @field_validator("model", mode="before")
    @classmethod
    def _model_or_default(cls, value: object) -> object:
        """A blank model means the driver's default model."""
        return (value.strip() or None) if isinstance(value, str) else value

    @field_validator("setup_script", "test_command", mode="before")
    @classmethod
    def _command_or_none(cls, value: object) -> object:
        """A blank command means none."""
        return (value if value.strip() else None) if isinstance(value, str) else value

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

    @field_validator("review_scope", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("trigger_phrase", "label_trigger")
    @classmethod
    def _single_word(cls, value: str) -> str:
        if not _PHRASE.match(value):
            raise ValueError("must be one word of at most 40 characters")
        return value

    @field_validator("plan_dir")
    @classmethod
    def _relative_dir(cls, value: str) -> str:
        """A directory inside the repository, normalised (`./docs//plans/` is
        `docs/plans`); `.git` in any letter case is refused, as case-insensitive file
        systems (macOS, Windows runners) read `.GIT` as `.git`."""
        path = PurePosixPath(value.strip())
        if (
            not value.strip()
            or path.is_absolute()
            or ".." in path.parts
            or any(part.lower() == ".git" for part in path.parts)
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
        """A prefix that makes branch names git accepts (`git check-ref-format` rules,
        checked on `<prefix>issue-1`), so a bad one fails here, before anything is posted."""
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
        try:
            validate_branch_name(f"{value}issue-1")
        except BranchNameError as error:
            raise ValueError(f"makes branch names git refuses: {error.message}") from None
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
        found = [s.get_secret_value() for s in secrets if s and s.get_secret_value()]
        if self.mcp_secrets is not None:
            from amelia.mcp.values import mcp_secret_values

            found += mcp_secret_values(self.mcp_secrets.get_secret_value())
        return found


class RunnerContext(_FromEnvironment):
    """What the GitHub runner tells a container action through `GITHUB_*` variables."""

    model_config = SettingsConfigDict(env_prefix="GITHUB_", populate_by_name=True)

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
    token: SecretStr | None = None
    """`GITHUB_TOKEN`, when a workflow exports it (the `github_token` input wins)."""
    temp: str | None = Field(
        default=None, validation_alias=AliasChoices("RUNNER_TEMP", "runner_temp", "temp")
    )
    """`RUNNER_TEMP`: the runner's scratch directory (not mounted into a container)."""
    actions: bool = False
    """`GITHUB_ACTIONS=true`: amelia runs on a GitHub runner, not on someone's machine."""

    @field_validator("api_url", "server_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        """GitHub's API and web addresses: an http(s) URL with a host (PyGithub fails
        deep inside on anything else)."""
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"must be an http(s) URL like https://api.github.com, not {value!r}")
        return value.strip()

    @property
    def run_url(self) -> str | None:
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url.rstrip('/')}/{self.repository}/actions/runs/{self.run_id}"


class AmeliaVariables(_FromEnvironment):
    """amelia's own `AMELIA_*` variables."""

    model_config = SettingsConfigDict(env_prefix="AMELIA_")

    command: str = ""
    """`AMELIA_COMMAND`: run this command instead of routing the event (a matrix job)."""
    issue_number: str = ""
    """`AMELIA_ISSUE_NUMBER`: the issue or pull request `command` is about."""
    driver: str | None = None
    """`AMELIA_DRIVER`: the command line's driver key when `--driver` is not given."""
    model: str | None = None
    """`AMELIA_MODEL`: the command line's model when `--model` is not given."""
    home: Path | None = None
    """`AMELIA_HOME`: where transcripts and sessions go."""
    dry_run_dir: Path | None = None
    """`AMELIA_DRY_RUN_DIR`: where a dry run saves what it would have written."""
    artifacts_dir: Path | None = None
    """`AMELIA_ARTIFACTS_DIR`: where work that could not be pushed is saved."""
    agent_user: str = ""
    """`AMELIA_AGENT_USER`: the unprivileged user the Action's agents run as when amelia
    is root (a name, `<uid>:<gid>`, or `none`; empty: `amelia-agent`)."""
    mcp_user: str = ""
    """`AMELIA_MCP_USER`: the user the MCP servers amelia starts run as when amelia is root
    (a name, `<uid>:<gid>`, or `none`; empty: `amelia-mcp`)."""
    git_retry_attempts: int = Field(default=NetworkRetry().attempts, ge=1, le=10)
    """`AMELIA_GIT_RETRY_ATTEMPTS`: how often amelia's git tries a fetch or a push that
    fails the way a network or server hiccup does (1-10)."""
    git_retry_backoff: float = Field(
        default=NetworkRetry().backoff, ge=0, le=60, allow_inf_nan=False
    )
    """`AMELIA_GIT_RETRY_BACKOFF`: seconds (0-60); after failed try n amelia's git waits n
    times this before the next."""


class GitHubTuning(_FromEnvironment):
    """`AMELIA_GITHUB_*`: documented knobs so tests and impatient users can shorten waits."""

    model_config = SettingsConfigDict(env_prefix="AMELIA_GITHUB_")

    timeout: str = ""
    throttle: str = ""
    retry_max_attempts: str = ""
    retry_max_total_wait: str = ""
    retry_backoff_base: str = ""
    retry_backoff_max: str = ""

    def timeout_seconds(self) -> int:
        """Seconds one GitHub request may take: `AMELIA_GITHUB_TIMEOUT`, else 15."""
        text = self.timeout.strip()
        if not text:
            return DEFAULT_TIMEOUT
        if not text.isdigit() or int(text) < 1:
            raise ConfigError("AMELIA_GITHUB_TIMEOUT must be a whole number of seconds, at least 1")
        return int(text)

    def throttled(self) -> bool:
        """False when `AMELIA_GITHUB_THROTTLE` is 0/false/no: no pause between writes, for
        local stand-ins of GitHub only (GitHub itself asks for the pause)."""
        return self.throttle.strip().lower() not in _THROTTLE_OFF

    def retry_policy(self) -> RetryPolicy:
        """The default policy, with any field overridden by `AMELIA_GITHUB_RETRY_<FIELD>`
        (e.g. `AMELIA_GITHUB_RETRY_MAX_ATTEMPTS=3`, `AMELIA_GITHUB_RETRY_BACKOFF_BASE=0.01`)."""
        chosen = {
            name: value.strip()
            for name in RetryPolicy.model_fields
            if (value := getattr(self, f"retry_{name}")).strip()
        }
        try:
            return RetryPolicy.model_validate(chosen)
        except ValidationError as error:
            problems = "; ".join(
                f"AMELIA_GITHUB_RETRY_{str(problem['loc'][0]).upper()}: {problem['msg']}"
                for problem in error.errors()
            )
            raise ConfigError(f"invalid GitHub retry setting: {problems}") from None


class Settings(BaseModel):
    """Everything a run is configured with, built once by `load_settings()`.

    `environ` is the environment amelia's child processes start from (drivers blank its
    secrets for agents); secrets handed over by other means (`load_settings(secrets=...)`)
    are read like variables but never added to it.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    inputs: ActionInputs
    runner: RunnerContext
    amelia: AmeliaVariables
    github_timeout: int
    github_throttle: bool
    github_retry: RetryPolicy
    environ: Mapping[str, str] = Field(repr=False)
    secrets: Mapping[str, str] = Field(default_factory=dict, repr=False)
    scratch_root: Path
    """Where transcripts, dry-run output and unpushed work go so that later steps see them."""
    run_stamp: str
    """The run's id, or the time it started: names the per-run directories."""

    @property
    def github_token(self) -> str | None:
        """The token for GitHub and for amelia's own pushes: the `github_token` input, else
        `GITHUB_TOKEN`."""
        for token in (self.inputs.github_token, self.runner.token):
            if token is not None and token.get_secret_value():
                return token.get_secret_value()
        return None

    @property
    def git_retry(self) -> NetworkRetry:
        """How amelia's git retries a fetch or a push (`AMELIA_GIT_RETRY_*`)."""
        return NetworkRetry(
            attempts=self.amelia.git_retry_attempts, backoff=self.amelia.git_retry_backoff
        )

    @property
    def dry_run_dir(self) -> Path:
        """`$AMELIA_DRY_RUN_DIR`, else `<scratch>/amelia-dry-run/<run>`."""
        return self.amelia.dry_run_dir or self.scratch_root / "amelia-dry-run" / self.run_stamp

    @property
    def artifacts_dir(self) -> Path:
        """Where work that could not be pushed is saved (see `amelia.action.checkout`):
        `$AMELIA_ARTIFACTS_DIR`, else `<scratch>/amelia-artifacts`, per run."""
        base = self.amelia.artifacts_dir or self.scratch_root / "amelia-artifacts"
        return base / self.run_stamp

    @property
    def action_home(self) -> Path:
        """Transcripts and sessions of an Action run: `$AMELIA_HOME`, else
        `<scratch>/amelia`, outside the checkout and readable by later steps."""
        return self.amelia.home or self.scratch_root / "amelia"

    def model_credentials(self) -> dict[str, str]:
        """The model keys for the drivers, under the variables their SDKs read: a variable
        set in the environment wins over the key input of the same model; a gateway's
        ANTHROPIC_AUTH_TOKEN comes from the environment only."""
        found = {
            variable: value
            for field, variable in MODEL_KEY_VARIABLES.items()
            if (value := self._secret(variable) or self._input_secret(field))
        }
        if gateway := self._secret(GATEWAY_TOKEN_VARIABLE):
            found[GATEWAY_TOKEN_VARIABLE] = gateway
        return found

    def model_key_problem(self, driver: str, model: str | None) -> str | None:
        """Why the built-in `driver` cannot reach `model` (None: the driver's default) with
        the keys this run holds, naming the Action input to set (`openrouter_api_key`, not
        OPENROUTER_API_KEY); None when it can. Ask it before anything is posted."""
        from amelia.drivers.credentials import missing_credentials
        from amelia.drivers.runtime import DriverEnvironment

        held = DriverEnvironment(inherited=self.environ, credentials=self.model_credentials())
        inputs = {variable: field for field, variable in MODEL_KEY_VARIABLES.items()}
        return missing_credentials(driver, model, held, inputs=inputs)

    def secret_values(self) -> list[str]:
        """Every secret value amelia knows of, for masking and redaction: the secret inputs
        and every secret-looking variable (longest first)."""
        known = {*self.inputs.secret_values(), *secret_values({**self.environ, **self.secrets})}
        return sorted(known, key=len, reverse=True)

    def _secret(self, variable: str) -> str:
        return self.secrets.get(variable) or self.environ.get(variable) or ""

    def _input_secret(self, field: str) -> str:
        value: SecretStr | None = getattr(self.inputs, field)
        return value.get_secret_value() if value is not None else ""


def describe_validation_error(error: ValidationError, *, prefix: str = "INPUT_") -> str:
    """One line per bad field, naming the environment variable a user sets."""
    lines = []
    for problem in error.errors():
        field = ".".join(str(part) for part in problem["loc"]) or "input"
        lines.append(f"{prefix}{field.upper()}: {problem['msg']}")
    return "; ".join(lines)


def process_environment() -> dict[str, str]:
    """A copy of this process's environment: the one place amelia reads it. Product code
    gets what it needs from `load_settings()`; this is for tools around it (harnesses)."""
    return dict(os.environ)


@contextmanager
def replaced_process_environment(environment: Mapping[str, str]) -> Iterator[None]:
    """This process's environment is exactly `environment` while the context lasts, then
    what it was: for a tool around amelia that runs the engine in its own process (a test
    harness), so that the processes the run starts inherit the run's environment as they
    inherit amelia's (the Claude Agent SDK copies it for the CLI)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environment)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


def load_inputs(*, environ: Mapping[str, str] | None = None) -> ActionInputs:
    """Read the inputs, turning validation failures into one clear ConfigError."""
    source = process_environment() if environ is None else environ
    try:
        return ActionInputs.from_environ(source)
    except ValidationError as error:
        raise ConfigError(f"Invalid action input: {describe_validation_error(error)}") from None


def runner_files(*, environ: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """`GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY` alone, read even when the other settings
    are bad, so a run refused at start-up still writes its `conclusion` output."""
    source = process_environment() if environ is None else environ
    return (source.get("GITHUB_OUTPUT") or None, source.get("GITHUB_STEP_SUMMARY") or None)


def load_runner(*, environ: Mapping[str, str] | None = None) -> RunnerContext:
    source = process_environment() if environ is None else environ
    try:
        return RunnerContext.from_environ(source)
    except ValidationError as error:
        raise ConfigError(
            f"Invalid runner variable: {describe_validation_error(error, prefix='GITHUB_')}"
        ) from None


def _scratch_root(runner: RunnerContext, container_home: Path) -> Path:
    """In a container action RUNNER_TEMP names a host directory that is not mounted;
    /github/home is (the host's $RUNNER_TEMP/_github_home)."""
    if container_home.is_dir():
        return container_home
    return Path(runner.temp or tempfile.gettempdir())


def _writable_directory(variable: str, directory: Path) -> None:
    """`directory`, named by `variable`, is a directory amelia can write or make, else one
    `ConfigError` naming the variable, found before a run writes anything. A missing one is
    made to see that it can be, and removed again: reading settings leaves nothing behind."""
    missing: list[Path] = []
    existing = directory
    while not existing.exists() and existing != existing.parent:
        missing.append(existing)
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{variable}: {existing} is not a directory")
    if not missing:
        if not os.access(directory, os.W_OK | os.X_OK):
            raise ConfigError(f"{variable}: the directory {directory} cannot be written")
        return
    try:
        directory.mkdir(parents=True)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ConfigError(
            f"{variable}: cannot create the directory {directory}: {reason}"
        ) from None
    finally:
        for made in missing:  # the deepest first
            try:
                made.rmdir()
            except OSError:
                break


def load_settings(
    *,
    environ: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    container_home: Path = CONTAINER_HOME,
) -> Settings:
    """Build the run's settings from `environ` (default: this process's environment).

    `secrets` are variables handed over without the environment (e.g. through a pipe):
    read like the rest, never passed on to child processes. By default, reading this
    process's environment, they are the credentials the restart at start-up handed over
    (`amelia.isolation.handoff`). Raises `ConfigError`.
    """
    if environ is None:
        base = process_environment()
        handed = dict(handed_over_secrets() if secrets is None else secrets)
    else:
        base = dict(environ)
        handed = dict(secrets or {})
    variables = {**base, **handed}
    runner = load_runner(environ=variables)
    inputs = load_inputs(environ=variables)
    try:
        amelia = AmeliaVariables.from_environ(variables)
    except ValidationError as error:
        raise ConfigError(
            f"Invalid amelia variable: {describe_validation_error(error, prefix='AMELIA_')}"
        ) from None
    for variable, directory in (
        ("AMELIA_DRY_RUN_DIR", amelia.dry_run_dir),
        ("AMELIA_ARTIFACTS_DIR", amelia.artifacts_dir),
        ("AMELIA_HOME", amelia.home),
    ):
        if directory is not None:
            _writable_directory(variable, directory)
    tuning = GitHubTuning.from_environ(variables)
    fields: dict[str, Any] = {
        "github_timeout": tuning.timeout_seconds(),
        "github_throttle": tuning.throttled(),
        "github_retry": tuning.retry_policy(),
    }
    return Settings(
        inputs=inputs,
        runner=runner,
        amelia=amelia,
        environ=base,
        secrets=handed,
        scratch_root=_scratch_root(runner, container_home),
        run_stamp=runner.run_id or time.strftime("%Y%m%d-%H%M%S"),
        **fields,
    )


def driver_environment(*, environ: Mapping[str, str] | None = None) -> DriverEnvironment:
    """What a driver made without an environment starts from: a library caller's
    `DriverFactory.get_driver("api:openrouter", model=…)` or `ClaudeCliDriver()`.

    Read here like the run's settings, from `environ` (default: this process's environment
    and the credentials handed over at start): its child processes start from it with
    every secret blanked by the driver (the token, `INPUT_*` keys, the runner's and the
    clouds' credentials), the model's key and server come from the variables the SDKs
    read (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `OPENROUTER_API_KEY`, …, and their base
    URLs), transcripts go under `AMELIA_HOME` (else `~/.amelia`), masked of every secret
    value. The Claude Code driver runs the credential proxy for its runs
    (`proxy_model_keys`), so the CLI and the agent's commands hold a per-run token, never
    the key. Agents run as this process's user. amelia's own commands build theirs from
    the settings, with the credential proxy's URL and token instead of the keys.
    Raises `ConfigError` for a malformed `AMELIA_*` variable."""
    from amelia.drivers.runtime import DriverEnvironment

    if environ is None:
        base = process_environment()
        variables = {**base, **handed_over_secrets()}
    else:
        base = dict(environ)
        variables = dict(base)
    try:
        amelia = AmeliaVariables.from_environ(variables)
    except ValidationError as error:
        raise ConfigError(
            f"Invalid amelia variable: {describe_validation_error(error, prefix='AMELIA_')}"
        ) from None
    credentials = {
        name: value
        for name in _MODEL_CONNECTION_VARIABLES
        if (value := variables.get(name, "").strip())
    }
    return DriverEnvironment(
        inherited=base,
        credentials=credentials,
        home=amelia.home,
        redactor=Redactor(secrets=secret_values(variables)),
        proxy_model_keys=True,
    )
