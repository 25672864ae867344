"""The INPUT_* set a runner passes, read from action.yml itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.testing.action_inputs import ACTION_YML, declared_inputs, runner_inputs


def test_every_input_of_the_real_action_yml_is_read_with_its_default() -> None:
    text = ACTION_YML.read_text(encoding="utf-8")
    inputs = declared_inputs()
    # Each name declared under `inputs:` (two spaces in), and nothing else.
    block = text.split("\ninputs:\n", 1)[1].split("\noutputs:\n", 1)[0]
    names = [line[2:-1] for line in block.splitlines() if line.startswith("  ") and line[2] != " "]
    assert list(inputs) == names
    assert inputs["trigger_phrase"] == "/amelia"
    assert inputs["plan_dir"] == "docs/plans"
    assert inputs["branch_prefix"] == "amelia/"
    assert inputs["max_review_iterations"] == "3"
    assert inputs["model"] == ""
    assert inputs["github_token"] == "${{ github.token }}"


def test_the_runner_passes_every_input_and_fills_in_the_token() -> None:
    variables = runner_inputs("ghs_job_token", {"driver": "api:openai", "extra": "x"})
    assert variables["INPUT_GITHUB_TOKEN"] == "ghs_job_token"
    assert variables["INPUT_DRIVER"] == "api:openai"
    assert variables["INPUT_EXTRA"] == "x"
    assert variables["INPUT_REVIEW_EVENT"] == "COMMENT"
    assert len(variables) == len(declared_inputs()) + 1


def _action(tmp_path: Path, inputs: str) -> Path:
    path = tmp_path / "action.yml"
    path.write_text(f"name: x\ninputs:\n{inputs}outputs:\n  y:\n    description: y\n")
    return path


def test_quoted_plain_and_commented_defaults(tmp_path: Path) -> None:
    path = _action(
        tmp_path,
        "  a:\n    description: >-\n      folded: text\n      default: not this\n"
        '    default: "say \\"hi\\""\n'
        "  b:\n    default: 'it''s'\n"
        "  c:\n    default: plain value # a comment\n"
        "  d:\n    required: true\n",
    )
    assert declared_inputs(path) == {"a": 'say "hi"', "b": "it's", "c": "plain value", "d": ""}


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ("  a:\n    default: |\n      two\n      lines\n", "block scalar"),
        ('  a:\n    default: "open\n', "quoted string"),
        ("  a: value\n", "not a name in `inputs:`"),
    ],
)
def test_what_it_cannot_read_is_refused(tmp_path: Path, inputs: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        declared_inputs(_action(tmp_path, inputs))


def test_an_expression_other_than_the_token_is_refused(tmp_path: Path) -> None:
    path = _action(tmp_path, "  a:\n    default: ${{ github.actor }}\n")
    with pytest.raises(ValueError, match="cannot evaluate"):
        runner_inputs("t", path=path)


def test_a_file_without_inputs_or_no_file_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.yml"
    other.write_text("name: x\nruns:\n  using: docker\n")
    with pytest.raises(ValueError, match="no top-level"):
        declared_inputs(other)
    with pytest.raises(ValueError, match="cannot read"):
        declared_inputs(tmp_path / "missing.yml")
