"""`.github/amelia.yml`: every key, and one line naming the file and key path for each
kind of mistake."""

from __future__ import annotations

import pytest

from amelia.errors import EXIT_BAD_INPUT, exit_code_for
from amelia.repo_config import RepoConfig, RepoConfigError, load_trusted_files, parse_repo_config
from amelia.repo_config.loading import MAX_INSTRUCTIONS_FILE_CHARS

FULL = b"""
instructions: "Use British spelling."
instructions_files: [AGENTS.md, docs/CONVENTIONS.md]
agents:
  architect: {model: claude-opus-4-1, max_turns: 40}
  developer: {driver: cli:claude, instructions: "Run make check."}
  reviewer:  {driver: api:openai, model: "openai:gpt-4.1"}
review:
  path_instructions: [{path: "src/**", instructions: "Check the error messages."}]
  ignore_paths: ["docs/**", "*.lock"]
  skip_authors: ["renovate[bot]"]
  allowed_bots: ["dependabot[bot]"]
max_cost_usd: 5.0
"""


def test_every_key_of_the_documented_example_is_read() -> None:
    config = parse_repo_config(FULL)
    assert config.instructions == "Use British spelling."
    assert config.instructions_files == ("AGENTS.md", "docs/CONVENTIONS.md")
    assert config.agents.architect.max_turns == 40
    assert config.agents.developer.instructions == "Run make check."
    assert (config.agents.reviewer.driver, config.agents.reviewer.model) == (
        "api:openai",
        "openai:gpt-4.1",
    )
    assert config.review.path_instructions[0].path == "src/**"
    assert config.review.ignore_paths == ("docs/**", "*.lock")
    assert config.review.skip_authors == ("renovate[bot]",)
    assert config.review.allowed_bots == ("dependabot[bot]",)
    assert config.max_cost_usd == 5.0


@pytest.mark.parametrize("data", [None, b"", b"# only a comment\n", b"---\n"])
def test_a_missing_or_empty_file_means_every_default(data: bytes | None) -> None:
    assert parse_repo_config(data) == RepoConfig()


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            b"agents:\n  reviewer:\n    max_turns: 0\n",
            ".github/amelia.yml: agents.reviewer.max_turns: Input should be greater than or "
            "equal to 1 (got 0)",
        ),
        (b"instructons: hi\n", ".github/amelia.yml: instructons: unknown key"),
        (
            b"review:\n  path_instructions:\n    - {path: '../x', instructions: y}\n",
            ".github/amelia.yml: review.path_instructions[0].path: Value error, must be a path "
            "relative to the repository root",
        ),
        (b"agents:\n  developer: {driver: gpt}\n", ".github/amelia.yml: agents.developer.driver:"),
        (b"max_cost_usd: -1\n", ".github/amelia.yml: max_cost_usd: Input should be greater"),
        (b"- a\n- b\n", ".github/amelia.yml: must be a mapping of keys"),
        (b"agents: [\n", ".github/amelia.yml: line 2, column 1: not valid YAML"),
        (b"a: &x [1]\nb: *x\n", ".github/amelia.yml: line 2: YAML aliases"),
        (b"instructions: \xff\n", ".github/amelia.yml: the file is not UTF-8 text"),
        (b"x" * 70_000, ".github/amelia.yml: the file is 70,000 bytes"),
    ],
)
def test_an_invalid_file_is_one_line_naming_the_file_and_the_key(
    data: bytes, expected: str
) -> None:
    with pytest.raises(RepoConfigError) as caught:
        parse_repo_config(data)
    assert caught.value.message.startswith(expected), caught.value.message
    assert "\n" not in caught.value.message
    assert exit_code_for(caught.value) == EXIT_BAD_INPUT


def test_instruction_files_come_through_the_same_reader_cut_to_size() -> None:
    files = {
        "cfg.yml": b"instructions_files: [AGENTS.md, missing.md, big.md]\n",
        "AGENTS.md": b"Run tox before you finish.\n",
        "big.md": b"y" * (MAX_INSTRUCTIONS_FILE_CHARS + 500),
    }
    read: list[str] = []

    def reader(path: str) -> bytes | None:
        read.append(path)
        return files.get(path)

    trusted = load_trusted_files(
        reader,
        config_file="cfg.yml",
        where="main",
        instruction_files=lambda c: c.instructions_files or (),
    )
    assert read == ["cfg.yml", "AGENTS.md", "missing.md", "big.md"]
    assert trusted.found and trusted.where == "main"
    assert trusted.instruction_files["AGENTS.md"] == "Run tox before you finish."
    assert "missing.md" not in trusted.instruction_files
    big = trusted.instruction_files["big.md"]
    assert big.startswith("y" * MAX_INSTRUCTIONS_FILE_CHARS) and "cut here" in big
