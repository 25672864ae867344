"""The toolchain's keys in `.github/amelia.yml`: an input set explicitly wins, an input at
its `action.yml` default does not."""

from __future__ import annotations

from amelia.action.run_settings import Toolchain, toolchain_from
from amelia.config import load_inputs
from amelia.repo_config import explicit_inputs, parse_repo_config
from amelia.testing.action_inputs import runner_inputs

FILE = parse_repo_config(
    b"setup: pip install -e .[test]\nsetup_timeout_minutes: 20\n"
    b"test_command: pytest -q\ntest_timeout_minutes: 5\n"
)


def _toolchain(chosen: dict[str, str]) -> Toolchain:
    environ = runner_inputs("t", chosen)
    return toolchain_from(
        load_inputs(environ=environ), config=FILE, explicit=explicit_inputs(environ)
    )


def test_the_file_sets_the_toolchain_when_the_inputs_are_at_their_defaults() -> None:
    toolchain = _toolchain({})
    assert (toolchain.setup, toolchain.setup_timeout_minutes) == ("pip install -e .[test]", 20)
    assert (toolchain.test_command, toolchain.test_timeout_minutes) == ("pytest -q", 5)
    assert toolchain.test_origin == "test_command in .github/amelia.yml"
    assert toolchain.setup_origin == "setup in .github/amelia.yml"


def test_an_explicit_input_wins_over_the_file() -> None:
    toolchain = _toolchain({"test_command": "make check", "setup_timeout_minutes": "3"})
    assert (toolchain.test_command, toolchain.test_origin) == ("make check", "test_command")
    assert toolchain.setup_timeout_minutes == 3
    assert toolchain.setup == "pip install -e .[test]" and toolchain.test_timeout_minutes == 5


def test_without_a_file_the_inputs_decide() -> None:
    environ = runner_inputs("t", {"test_command": "tox"})
    toolchain = toolchain_from(load_inputs(environ=environ))
    assert (toolchain.setup, toolchain.test_command) == (None, "tox")
    assert (toolchain.setup_timeout_minutes, toolchain.test_timeout_minutes) == (10, 10)
