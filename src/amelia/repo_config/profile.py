"""From the inputs and the repository's configuration to the run's `Profile`.

Precedence, for `driver`, `model`, `max_turns` and `max_cost_usd`: an input the workflow
(or the command line) sets explicitly wins over the file; an input left at its `action.yml`
default does not. A model goes with its driver: an explicit `model` is the model of the
agents on the input's driver, and an agent the file moves to another driver keeps the
file's model for it. A runner passes every input, defaults included, so "explicit" means
"different from the default `action.yml` declares" (`INPUT_DEFAULTS`, checked against the
file by the tests).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import get_args

from amelia.core.types import AgentProfile, AgentRole, PathInstruction, Profile
from amelia.core.types import ReviewOptions as ProfileReview
from amelia.repo_config.loading import TrustedFiles
from amelia.repo_config.model import RepoConfig

__all__ = [
    "CLAUDE_CODE_DRIVERS",
    "DEFAULT_INSTRUCTION_FILES",
    "INPUT_DEFAULTS",
    "agent_instructions",
    "configure_profile",
    "explicit_inputs",
    "instruction_files_for",
]

INPUT_DEFAULTS: dict[str, str] = {
    "driver": "cli:claude",
    "model": "",
    "max_turns": "",
    "max_cost_usd": "",
    "setup_script": "",
    "setup_timeout_minutes": "10",
    "test_command": "",
    "test_timeout_minutes": "10",
    "scan_limit": "20",
}
"""The `action.yml` defaults of the inputs the configuration file can also set."""

CLAUDE_CODE_DRIVERS: frozenset[str] = frozenset({"cli:claude", "cli"})
"""Drivers that run Claude Code, which reads `CLAUDE.md` from the checkout itself."""

CLAUDE_CODE_FILE = "CLAUDE.md"
DEFAULT_INSTRUCTION_FILES = ("AGENTS.md", CLAUDE_CODE_FILE)
"""`instructions_files` when the file names none (`CLAUDE.md` only for other drivers)."""

_ROLES: tuple[AgentRole, ...] = get_args(AgentRole)


def explicit_inputs(environ: Mapping[str, str]) -> frozenset[str]:
    """The inputs of `INPUT_DEFAULTS` set to something other than their default."""
    return frozenset(
        name
        for name, default in INPUT_DEFAULTS.items()
        if (value := environ.get(f"INPUT_{name.upper()}")) is not None and value.strip() != default
    )


def _agents(
    config: RepoConfig, explicit: Collection[str], base: Profile
) -> dict[AgentRole, AgentProfile]:
    """Each agent's driver, model and turn limit: the file's unless the input is explicit.

    A model goes with its driver, and the more specific setting wins: an explicit `model`
    input is the model of the agents on the input's driver, not of an agent the file moves
    to another driver (that one keeps the file's model, else its driver's default); an
    explicit `driver` input moving an agent off the file's driver drops the file's model
    named for that driver."""
    agents: dict[AgentRole, AgentProfile] = {}
    for role in _ROLES:
        own = getattr(config.agents, role)
        driver = None if "driver" in explicit else own.driver
        on_the_inputs_driver = driver is None or driver == base.driver
        the_inputs_model = "model" in explicit and on_the_inputs_driver
        named_for_a_dropped_driver = "driver" in explicit and own.driver not in (
            None,
            base.driver,
        )
        agents[role] = AgentProfile(
            driver=driver,
            model=None if the_inputs_model or named_for_a_dropped_driver else own.model,
            max_turns=None if "max_turns" in explicit else own.max_turns,
        )
    return agents


def _drivers(profile: Profile) -> set[str]:
    return {str(profile.agent(role).driver) for role in _ROLES}


def instruction_files_for(
    base: Profile, *, explicit: Collection[str] = ()
) -> Callable[[RepoConfig], tuple[str, ...]]:
    """What `load_trusted_files` reads besides the configuration: `instructions_files`, else
    `AGENTS.md`, and `CLAUDE.md` only when an agent runs on a driver other than Claude Code."""

    def files(config: RepoConfig) -> tuple[str, ...]:
        names = config.instructions_files
        if names is None:
            names = DEFAULT_INSTRUCTION_FILES
        profile = base.model_copy(update={"agents": _agents(config, explicit, base)})
        if _drivers(profile) <= CLAUDE_CODE_DRIVERS:
            names = tuple(name for name in names if name != CLAUDE_CODE_FILE)
        return names

    return files


def agent_instructions(trusted: TrustedFiles, role: AgentRole, driver: str | None) -> str:
    """The trusted project instructions for `role` on `driver`: the file's `instructions`,
    the instruction files (not `CLAUDE.md` for Claude Code, which reads it itself), then the
    agent's own `instructions`. Empty when there are none."""
    config, source = trusted.config, trusted.config_file
    parts: list[str] = []
    if config.instructions.strip():
        parts.append(f"### From `{source}`\n\n{config.instructions.strip()}")
    for name, text in trusted.instruction_files.items():
        if name == CLAUDE_CODE_FILE and driver in CLAUDE_CODE_DRIVERS:
            continue
        parts.append(f"### From `{name}`\n\n{text}")
    own = getattr(config.agents, role).instructions.strip()
    if own:
        parts.append(f"### For the {role}, from `{source}`\n\n{own}")
    return "\n\n".join(parts)


def configure_profile(
    base: Profile, trusted: TrustedFiles, *, explicit: Collection[str] = ()
) -> Profile:
    """`base` (built from the inputs) with the repository's configuration applied."""
    config = trusted.config
    profile = base.model_copy(update={"agents": _agents(config, explicit, base)})
    agents = {
        role: settings.model_copy(
            update={"instructions": agent_instructions(trusted, role, profile.agent(role).driver)}
        )
        for role, settings in profile.agents.items()
    }
    review = ProfileReview(
        ignore_paths=config.review.ignore_paths,
        path_instructions=tuple(
            PathInstruction(path=item.path, instructions=item.instructions)
            for item in config.review.path_instructions
        ),
    )
    budget = (
        base.max_cost_usd
        if "max_cost_usd" in explicit
        else (config.max_cost_usd or base.max_cost_usd)
    )
    return Profile.model_validate(
        {**profile.model_dump(), "agents": agents, "review": review, "max_cost_usd": budget}
    )
