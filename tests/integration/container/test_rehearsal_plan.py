"""Reading Dockerfiles, word expansion, .dockerignore and cache keys: no root needed."""

from __future__ import annotations

from pathlib import Path

import pytest
from scripts.image_rehearsal.dockerignore import DockerIgnore
from scripts.image_rehearsal.entrypoint import image_command, input_variables, parse_file_command
from scripts.image_rehearsal.errors import RehearsalError
from scripts.image_rehearsal.instructions import (
    Instruction,
    expand_word,
    parse_dockerfile,
    split_stages,
)
from scripts.image_rehearsal.plan import StagePlan, plan_stages

WHERE = Instruction(keyword="ENV", args=(), flags=(), json_form=False, line=3, original="ENV x")


def _plan(tmp_path: Path, dockerfile: str) -> list[StagePlan]:
    (tmp_path / "Dockerfile").write_text(dockerfile)
    stages = split_stages(parse_dockerfile(tmp_path / "Dockerfile"))
    return plan_stages(stages, tmp_path, "base-1", {})


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("$A/bin", "one/bin"),
        ("${A}x", "onex"),
        ("${MISSING:-fallback}", "fallback"),
        ("${A:+set}", "set"),
        ('"two words"', "two words"),
        ("'$A'", "$A"),
        ('"$A \\"q\\""', 'one "q"'),
        ("\\$A", "$A"),
    ],
)
def test_words_expand_like_docker(word: str, expected: str) -> None:
    assert expand_word(word, {"A": "one"}, WHERE) == expected


def test_an_unterminated_quote_names_the_line() -> None:
    with pytest.raises(RehearsalError, match="line 3"):
        expand_word('"open', {}, WHERE)


def test_env_arg_and_workdir_accumulate(tmp_path: Path) -> None:
    plans = _plan(
        tmp_path,
        'FROM debian:bookworm-slim\nARG V=1\nENV A=x-$V B="b c"\nENV LEGACY some value\n'
        'WORKDIR /srv\nWORKDIR app\nUSER nobody\nCMD ["run"]\n',
    )
    config = plans[0].final_config
    assert config.env["A"] == "x-1"
    assert config.env["B"] == "b c"
    assert config.env["LEGACY"] == "some value"
    assert "V" not in config.env and config.args == {"V": "1"}
    assert config.workdir == "/srv/app"
    assert config.user == "nobody"
    assert config.cmd == ("run",)


def test_entrypoint_clears_the_base_images_cmd(tmp_path: Path) -> None:
    plans = _plan(tmp_path, 'FROM debian:bookworm-slim\nENTRYPOINT ["tool", "go"]\n')
    assert plans[0].final_config.entrypoint == ("tool", "go")
    assert plans[0].final_config.cmd == ()


@pytest.mark.parametrize(
    ("dockerfile", "message"),
    [
        ("FROM ubuntu:24.04\n", r"FROM ubuntu:24.04 cannot be rehearsed .*line 1"),
        ("FROM debian:bookworm-slim\nHEALTHCHECK NONE\n", "unsupported instruction HEALTHCHECK"),
        ("FROM debian:bookworm-slim\nADD a /a\n", r"unsupported instruction ADD at line 2"),
        ("FROM debian:bookworm-slim\nCOPY --link a /a\n", r"unsupported flag '--link'.*line 2"),
        ("FROM debian:bookworm-slim\nCOPY --from=nowhere /a /a\n", r"--from=nowhere.*line 2"),
        ("FROM debian:bookworm-slim\nRUN --mount=type=cache,target=/c true\n", "--mount"),
        ("ARG X=1\nFROM debian:bookworm-slim\n", "ARG before the first FROM"),
        ("FROM debian:bookworm-slim\nRUN <<EOF\ntrue\nEOF\n", "heredocs"),
    ],
)
def test_what_cannot_be_rehearsed_fails_naming_the_instruction(
    tmp_path: Path, dockerfile: str, message: str
) -> None:
    with pytest.raises(RehearsalError, match=message):
        _plan(tmp_path, dockerfile)


def test_a_changed_source_invalidates_its_copy_and_later_steps_only(tmp_path: Path) -> None:
    dockerfile = (
        "FROM debian:bookworm-slim\nRUN true\nCOPY lock /lock\nRUN true\nCOPY src /src\nRUN true\n"
    )
    (tmp_path / "lock").write_text("v1")
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text("print(1)")
    before = [step.key for step in _plan(tmp_path, dockerfile)[0].steps]
    (tmp_path / "src/app.py").write_text("print(2)")
    after = [step.key for step in _plan(tmp_path, dockerfile)[0].steps]
    assert before[:3] == after[:3]
    assert all(b != a for b, a in zip(before[3:], after[3:], strict=True))


def test_snapshots_sit_before_copies_and_at_the_stage_end(tmp_path: Path) -> None:
    (tmp_path / "lock").write_text("v1")
    plans = _plan(
        tmp_path, "FROM debian:bookworm-slim\nRUN a\nRUN b\nCOPY lock /lock\nRUN c\nENV X=1\n"
    )
    assert [step.snapshot for step in plans[0].steps] == [False, True, False, False, True]


def test_dockerignore_last_match_wins_and_covers_directories(tmp_path: Path) -> None:
    (tmp_path / ".dockerignore").write_text("*\n!src/\nsrc/**/__pycache__\n!keep.md\n")
    ignore = DockerIgnore.load(tmp_path)
    assert ignore.excludes("secrets.env")
    assert not ignore.excludes("src/amelia/cli.py")
    assert ignore.excludes("src/amelia/__pycache__/cli.cpython-311.pyc")
    assert not ignore.excludes("keep.md")


def test_file_commands_parse_plain_and_multiline_values() -> None:
    text = "plan_path=docs/plans/7.md\nbody<<EOF_1\nline one\nline two\nEOF_1\nempty=\n"
    assert parse_file_command(text) == {
        "plan_path": "docs/plans/7.md",
        "body": "line one\nline two",
        "empty": "",
    }


def test_inputs_become_input_variables_like_the_runner_makes_them() -> None:
    assert input_variables({"github-token": "t", "model name": "m"}) == {
        "INPUT_GITHUB-TOKEN": "t",
        "INPUT_MODEL_NAME": "m",
    }


def test_action_args_replace_cmd_and_an_entrypoint_override_drops_it(tmp_path: Path) -> None:
    plans = _plan(tmp_path, 'FROM debian:bookworm-slim\nENTRYPOINT ["amelia"]\nCMD ["action"]\n')
    config = plans[0].final_config
    assert image_command(config) == ("amelia", "action")
    assert image_command(config, args=["version"]) == ("amelia", "version")
    assert image_command(config, entrypoint=["sh"]) == ("sh",)


def test_only_the_last_stage_keeps_its_end(tmp_path: Path) -> None:
    (tmp_path / "lock").write_text("v1")
    plans = _plan(
        tmp_path,
        "FROM debian:bookworm-slim AS build\nRUN a\nCOPY lock /lock\nRUN b\n"
        "FROM debian:bookworm-slim\nRUN c\nCOPY --from=build /lock /lock\nENV X=1\n",
    )
    assert [[step.snapshot for step in plan.steps] for plan in plans] == [
        [True, False, False],
        [True, False, True],
    ]
