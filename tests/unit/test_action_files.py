"""The two flavours of the Action declare the same interface: the container (`action.yml`)
and the composite that runs amelia on the runner (`host/action.yml`)."""

from __future__ import annotations

import re

from amelia.testing.action_inputs import (
    ACTION_YML,
    HOST_ACTION_YML,
    declared_inputs,
    declared_outputs,
)


def test_both_flavours_take_the_same_inputs_with_the_same_defaults() -> None:
    container, host = declared_inputs(ACTION_YML), declared_inputs(HOST_ACTION_YML)
    assert list(host.items()) == list(container.items())
    assert {"setup_script", "test_command", "test_timeout_minutes"} <= set(host)


def test_both_flavours_give_the_same_outputs() -> None:
    assert declared_outputs(HOST_ACTION_YML) == declared_outputs(ACTION_YML)
    assert "verdict" in declared_outputs(ACTION_YML)


def test_the_host_flavour_hands_every_input_and_output_through() -> None:
    text = HOST_ACTION_YML.read_text(encoding="utf-8")
    # A composite action gets no INPUT_* variables: the step passes each one itself, as a
    # runner would for the container, to the same entrypoint.
    for name in declared_inputs(HOST_ACTION_YML):
        assert f"INPUT_{name.upper()}: ${{{{ inputs.{name} }}}}" in text, name
    for name in declared_outputs(HOST_ACTION_YML):
        assert f"value: ${{{{ steps.amelia.outputs.{name} }}}}" in text, name
    assert "uv export" in text and "--frozen" in text
    install = (
        r"uv pip install .*--constraints \"\$constraints\" \\\n"
        r"\s+\"\$GITHUB_ACTION_PATH/\.\.\""
    )
    assert re.search(install, text)


def test_the_host_flavour_leaves_no_process_above_amelia_with_the_inputs() -> None:
    # `uvx` (and `uv run`) stay as the parent of what they start, with the step's
    # environment, the token and the model keys included, readable by every process of
    # the runner's user at /proc/<pid>/environ: amelia must replace the step's shell.
    text = HOST_ACTION_YML.read_text(encoding="utf-8")
    run = text.split("      run: |\n", 1)[1]
    commands = [line.strip() for line in run.splitlines() if line.strip()]
    assert commands[-1] == 'exec "$environment/bin/amelia" action'
    assert not any(re.match(r"(exec )?(uvx|uv run|uv tool run)\b", line) for line in commands)
