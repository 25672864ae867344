"""The settings one Action run uses, where the inputs, the repository's configuration file
and the environment meet, and which of them wins for each setting, decided here and
nowhere else:

- the repository: `GITHUB_REPOSITORY`, else the event's; the checkout: the caller's, else
  `GITHUB_WORKSPACE`, else the container's; a dry run: the caller's, else the input
  (`run_target`, before GitHub is opened, since the dry run decides how);
- the agents' drivers, models, turn limits, budget and instructions: the input when the
  workflow set it explicitly (`amelia.repo_config.explicit_inputs`), else the
  repository's configuration file, else the input's default
  (`amelia.repo_config.configure_profile`); the same for the setup and the test command
  (`toolchain_from`) and the scan's bound (`scan_bound`);
- whether an automatic review is made at all (`review.allowed_bots`, `review.skip_authors`).

`resolve_run_settings` makes all of them into one frozen `RunSettings` the mode gets.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from amelia.config import ActionInputs, RunnerContext, Settings
from amelia.errors import ConfigError
from amelia.github.events import Command, Event
from amelia.repo_config import DEFAULT_CONFIG_FILE, RepoConfig

if TYPE_CHECKING:
    from amelia.core.types import Profile
    from amelia.github.port import GitHubPort
    from amelia.redaction import Redactor

__all__ = [
    "MATRIX_JOB_LIMIT",
    "RunSettings",
    "RunTarget",
    "ScanBound",
    "Toolchain",
    "profile_from",
    "resolve_run_settings",
    "run_target",
    "scan_bound",
    "toolchain_from",
]


@dataclass(frozen=True, kw_only=True)
class Toolchain:
    """What the project asks amelia to run, and where each setting came from."""

    setup: str | None = None
    setup_timeout_minutes: float = 10.0
    setup_origin: str = "setup_script"
    test_command: str | None = None
    test_timeout_minutes: float = 10.0
    test_origin: str = "test_command"


def toolchain_from(
    inputs: ActionInputs,
    *,
    config: RepoConfig | None = None,
    config_file: str = DEFAULT_CONFIG_FILE,
    explicit: Collection[str] = (),
) -> Toolchain:
    """The toolchain settings: an input the workflow set explicitly (see
    `amelia.repo_config.explicit_inputs`) wins over the repository's configuration file
    (`setup`, `setup_timeout_minutes`, `test_command`, `test_timeout_minutes`)."""
    file = config or RepoConfig()

    def chosen(name: str, from_file: object) -> bool:
        """True when the input decides: set explicitly, or the file says nothing."""
        return name in explicit or from_file is None

    def timeout(name: str, from_input: float, from_file: float | None) -> float:
        return from_input if from_file is None or chosen(name, from_file) else from_file

    setup_from_input = chosen("setup_script", file.setup)
    test_from_input = chosen("test_command", file.test_command)
    return Toolchain(
        setup=inputs.setup_script if setup_from_input else file.setup,
        setup_origin="setup_script" if setup_from_input else f"setup in {config_file}",
        setup_timeout_minutes=timeout(
            "setup_timeout_minutes", inputs.setup_timeout_minutes, file.setup_timeout_minutes
        ),
        test_command=inputs.test_command if test_from_input else file.test_command,
        test_origin="test_command" if test_from_input else f"test_command in {config_file}",
        test_timeout_minutes=timeout(
            "test_timeout_minutes", inputs.test_timeout_minutes, file.test_timeout_minutes
        ),
    )


MATRIX_JOB_LIMIT = 256
"""GitHub runs at most this many jobs from one matrix."""


@dataclass(frozen=True)
class ScanBound:
    """How many waiting issues one scan hands out, and which setting said so."""

    limit: int
    """At most this many per scan, never above `MATRIX_JOB_LIMIT`."""
    configured: int
    """What the setting asked for (above `limit` when capped)."""
    setting: str
    """Where it came from, for messages: the `scan_limit` input, or the file's key."""

    @property
    def capped(self) -> bool:
        return self.configured > self.limit

    @property
    def warning(self) -> str | None:
        """Why fewer issues are handed out than configured, or None."""
        if not self.capped:
            return None
        setting = self.setting[:1].upper() + self.setting[1:]
        return (
            f"{setting} is {self.configured:,}, above GitHub's limit of "
            f"{MATRIX_JOB_LIMIT} jobs in one matrix: a scan hands out at most "
            f"{self.limit} issues, the rest wait for the next scan"
        )


def scan_bound(
    input_limit: int,
    config_limit: int | None,
    *,
    explicit: bool,
    config_file: str = ".github/amelia.yml",
) -> ScanBound:
    """The bound: the input when the workflow set it (`explicit`), else the file's
    `scan.limit`, else the input's default; capped at `MATRIX_JOB_LIMIT`."""
    if explicit or config_limit is None:
        configured, setting = input_limit, "the `scan_limit` input"
    else:
        configured, setting = config_limit, f"`scan.limit` in {config_file}"
    return ScanBound(
        limit=min(configured, MATRIX_JOB_LIMIT), configured=configured, setting=setting
    )


@dataclass(frozen=True, kw_only=True)
class RunTarget:
    """What the run works on, decided before GitHub is opened."""

    repo: str
    """owner/name of the repository."""
    checkout: Path
    dry_run: bool
    dry_run_dir: Path | None
    """Where a dry run records its writes (None: not a dry run)."""


def run_target(
    settings: Settings,
    event: Event,
    *,
    dry_run: bool | None = None,
    workspace: Path | None = None,
    default_workspace: Path | None = None,
) -> RunTarget:
    """The repository (`GITHUB_REPOSITORY`, else the event's), the checkout (`workspace`,
    else `GITHUB_WORKSPACE`, else `default_workspace`, else the container's) and whether
    this is a dry run (`dry_run`, else the input). Raises `ConfigError` without a
    repository."""
    runner = settings.runner
    repo = runner.repository or (event.repository.full_name if event.repository else None)
    if not repo or "/" not in repo:
        raise ConfigError("no repository: GITHUB_REPOSITORY must be owner/name")
    if workspace is not None:
        checkout = workspace
    elif "workspace" in runner.model_fields_set or default_workspace is None:
        checkout = Path(runner.workspace)
    else:
        checkout = default_workspace
    dry = settings.inputs.dry_run if dry_run is None else dry_run
    return RunTarget(
        repo=repo,
        checkout=checkout,
        dry_run=dry,
        dry_run_dir=settings.dry_run_dir if dry else None,
    )


def profile_from(inputs: ActionInputs) -> Profile:
    """The agents' profile as the inputs alone give it."""
    from amelia.core.types import Profile
    from amelia.pipeline.planfile import plan_path_pattern

    return Profile(
        driver=inputs.driver,
        model=inputs.model,
        max_turns=inputs.max_turns,
        max_review_iterations=inputs.max_review_iterations,
        timeout_seconds=inputs.timeout_minutes * 60,
        plan_path_pattern=plan_path_pattern(inputs.plan_dir),
        max_cost_usd=inputs.max_cost_usd,
    )


@dataclass(frozen=True, kw_only=True)
class RunSettings:
    """Every setting of one run, each decided once (see the module docstring)."""

    inputs: ActionInputs
    runner: RunnerContext
    """The GitHub runner's context: server, run, workspace, the runner's files."""
    target: RunTarget
    profile: Profile
    toolchain: Toolchain
    repo_config: RepoConfig
    """The repository's configuration file as the trusted commit has it (empty: not read,
    for a mode without a workspace, or none there)."""
    explicit_inputs: frozenset[str]
    """The inputs the workflow set to something other than their default."""
    skipped: str | None = None
    """Why an automatic review is not made (None: go on)."""

    @property
    def scan_bound(self) -> ScanBound:
        """How many issues a scan hands out: the input when set explicitly, else the
        file's `scan.limit`, else the input's default; capped at GitHub's matrix limit."""
        return scan_bound(
            self.inputs.scan_limit,
            self.repo_config.scan.limit,
            explicit="scan_limit" in self.explicit_inputs,
            config_file=self.inputs.config_file,
        )


def _dated(profile: Profile, day: date) -> Profile:
    """`profile` with the `{date}` of its plan file name set to `day`."""
    pattern = profile.plan_path_pattern.replace("{date}", day.isoformat())
    return profile.model_copy(update={"plan_path_pattern": pattern})


async def resolve_run_settings(
    settings: Settings,
    target: RunTarget,
    command: Command,
    event: Event,
    *,
    github: GitHubPort,
    redactor: Redactor,
    read_repository: bool,
    day: date | None = None,
) -> RunSettings:
    """The run's settings: the inputs, and with `read_repository` the repository's
    configuration file read from the trusted commit (an invalid one is told on the issue
    or pull and raised as `RepoConfigError`) applied where no explicit input wins. `day`
    (the run's start, UTC) is the `{date}` of the plan file's name, so a replay of the run
    names the plan file as the run did."""
    from amelia.repo_config import configure_profile, explicit_inputs

    inputs = settings.inputs
    base = profile_from(inputs)
    if day is not None:
        base = _dated(base, day)
    if not read_repository:
        return RunSettings(
            inputs=inputs,
            runner=settings.runner,
            target=target,
            profile=base,
            toolchain=toolchain_from(inputs),
            repo_config=RepoConfig(),
            explicit_inputs=frozenset(),
        )
    from amelia.action._repository_config import automatic_review_skip, read_trusted_files

    explicit = explicit_inputs(settings.environ)
    trusted = await read_trusted_files(
        github,
        command,
        event,
        config_file=inputs.config_file,
        branch_prefix=inputs.branch_prefix,
        base=base,
        explicit=explicit,
        redactor=redactor,
    )
    return RunSettings(
        inputs=inputs,
        runner=settings.runner,
        target=target,
        profile=configure_profile(base, trusted, explicit=explicit),
        toolchain=toolchain_from(
            inputs, config=trusted.config, config_file=trusted.config_file, explicit=explicit
        ),
        repo_config=trusted.config,
        explicit_inputs=explicit,
        skipped=automatic_review_skip(trusted.config.review, command, event),
    )
