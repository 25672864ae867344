"""From inputs and `.github/amelia.yml` to the profile: precedence, per-agent drivers and
models, and which instruction text each agent gets."""

from __future__ import annotations

from amelia.core.types import Profile
from amelia.repo_config import (
    INPUT_DEFAULTS,
    TrustedFiles,
    configure_profile,
    explicit_inputs,
    instruction_files_for,
    parse_repo_config,
)
from amelia.testing.action_inputs import declared_inputs, runner_inputs

CONFIG = parse_repo_config(
    b"""
instructions: Prefer small functions.
agents:
  developer: {model: claude-sonnet-4-5, max_turns: 30, instructions: Run make check.}
  reviewer: {driver: api:openai, model: "openai:gpt-4.1"}
max_cost_usd: 2.5
review:
  ignore_paths: ["*.lock"]
  path_instructions: [{path: "src/**", instructions: Check errors.}]
"""
)
FILES = {"AGENTS.md": "Use tox.", "CLAUDE.md": "Claude notes."}


def _trusted() -> TrustedFiles:
    return TrustedFiles(config=CONFIG, found=True, instruction_files=dict(FILES))


def test_the_defaults_compared_with_are_the_defaults_action_yml_declares() -> None:
    declared = declared_inputs()
    assert {name: declared[name] for name in INPUT_DEFAULTS} == INPUT_DEFAULTS


def test_an_input_at_its_default_is_not_explicit_even_though_the_runner_passes_it() -> None:
    assert explicit_inputs(runner_inputs("t")) == frozenset()
    chosen = runner_inputs("t", {"model": "claude-opus-4-1", "driver": "cli:claude"})
    assert explicit_inputs(chosen) == {"model"}
    assert explicit_inputs({}) == frozenset()


def test_the_file_sets_each_agent_unless_an_input_is_explicit() -> None:
    profile = configure_profile(Profile(max_turns=10), _trusted())
    developer, reviewer, architect = (
        profile.agent(r) for r in ("developer", "reviewer", "architect")
    )
    assert (developer.driver, developer.model, developer.max_turns) == (
        "cli:claude",
        "claude-sonnet-4-5",
        30,
    )
    assert (reviewer.driver, reviewer.model, reviewer.max_turns) == (
        "api:openai",
        "openai:gpt-4.1",
        10,
    )
    assert (architect.driver, architect.model, architect.max_turns) == ("cli:claude", None, 10)
    assert profile.max_cost_usd == 2.5
    assert profile.review.ignore_paths == ("*.lock",)
    assert profile.review.path_instructions[0].instructions == "Check errors."

    inputs = Profile(driver="cli:claude", model="claude-opus-4-1", max_turns=5, max_cost_usd=1.0)
    explicit = {"driver", "model", "max_turns", "max_cost_usd"}
    pinned = configure_profile(inputs, _trusted(), explicit=explicit)
    for role in ("architect", "developer", "reviewer"):
        agent = pinned.agent(role)
        assert (agent.driver, agent.model, agent.max_turns) == ("cli:claude", "claude-opus-4-1", 5)
    assert pinned.max_cost_usd == 1.0


def test_claude_md_goes_only_to_agents_claude_code_does_not_run() -> None:
    profile = configure_profile(Profile(), _trusted())
    developer = profile.agent("developer").instructions
    reviewer = profile.agent("reviewer").instructions
    for text in (developer, reviewer, profile.agent("architect").instructions):
        assert "Prefer small functions." in text and "Use tox." in text
    assert "Run make check." in developer and "Run make check." not in reviewer
    assert "Claude notes." in reviewer and "Claude notes." not in developer


def test_claude_md_is_not_even_read_when_every_agent_runs_claude_code() -> None:
    only_claude = parse_repo_config(b"instructions: x\n")
    assert instruction_files_for(Profile())(only_claude) == ("AGENTS.md",)
    assert instruction_files_for(Profile())(CONFIG) == ("AGENTS.md", "CLAUDE.md")
    # An explicit driver input wins over the reviewer's api:openai, so no one needs it.
    assert instruction_files_for(Profile(), explicit={"driver"})(CONFIG) == ("AGENTS.md",)
    listed = parse_repo_config(b"instructions_files: [docs/rules.md]\n")
    assert instruction_files_for(Profile(driver="api:openai"))(listed) == ("docs/rules.md",)


def test_an_explicit_model_is_the_model_of_the_agents_on_the_inputs_driver_only() -> None:
    config = parse_repo_config(
        b"""
agents:
  developer: {model: claude-haiku-4-5}
  reviewer: {driver: api:openai, model: "openai-chat:gpt-4o-mini"}
  answerer: {driver: api:openrouter}
"""
    )
    trusted = TrustedFiles(config=config, found=True, instruction_files={})
    chosen = configure_profile(
        Profile(driver="cli:claude", model="claude-sonnet-4-5"), trusted, explicit={"model"}
    )
    agents = {role: chosen.agent(role) for role in ("architect", "developer", "reviewer")}
    assert {role: (a.driver, a.model) for role, a in agents.items()} == {
        "architect": ("cli:claude", "claude-sonnet-4-5"),
        "developer": ("cli:claude", "claude-sonnet-4-5"),  # the input's driver: its model
        "reviewer": ("api:openai", "openai-chat:gpt-4o-mini"),  # the file's pair, whole
    }
    answerer = chosen.agent("answerer")
    assert (answerer.driver, answerer.model) == ("api:openrouter", None)  # its driver's default

    # An explicit driver moves every agent to it; a model the file named for another
    # driver does not come along, one named without a driver does.
    moved = configure_profile(Profile(driver="api:openrouter"), trusted, explicit={"driver"})
    assert {role: moved.agent(role).model for role in ("developer", "reviewer")} == {
        "developer": "claude-haiku-4-5",
        "reviewer": None,
    }
    assert {moved.agent(role).driver for role in ("developer", "reviewer")} == {"api:openrouter"}
