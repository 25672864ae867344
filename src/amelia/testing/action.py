"""A pytest plugin for in-process Action tests: the Action's engine run in the test's own
process against the in-memory GitHub, scripted agents and a manual clock.

Register it once (`pytest_plugins = ["amelia.testing.action"]` in the top `conftest.py`);
every test then gets `action`, an `ActionHarness` with a bare origin served by the local
GitHub, a checkout laid out as actions/checkout leaves it, and the events GitHub sends
(and `harness`, the same for subprocess runs of the real entry point):

    def test_a_writer_gets_a_plan(action: ActionHarness) -> None:
        number = action.add_issue("Add a farewell", "Say goodbye too.")
        run = action.run_in_process("issue_comment", action.comment_event(number, "/amelia plan"))
        assert run.outputs["branch"] in action.origin_branches()

`run_in_process` passes exactly the `INPUT_*` set a runner passes (every input of
action.yml with its default) and asserts nothing itself: look at `run.outputs`,
`run.summary`, `run.stdout`, the GitHub state (`action.github.comments(...)`,
`action.github.state`), origin (`action.origin_branches()`, `action.origin_file(...)`) and
what the agents were sent (`run.model_text()`, `action.agents`).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.testing.action_harness import ActionHarness

__all__ = ["action", "harness"]


@pytest.fixture
def action(tmp_path: Path) -> Iterator[ActionHarness]:
    """The Action's surroundings for in-process runs (see the module docstring)."""
    with ActionHarness(tmp_path / "action") as started:
        yield started


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[ActionHarness]:
    """The same surroundings for runs of the real entry point as a subprocess
    (`harness.run(...)`: `amelia action` with the Claude Code CLI against the scripted
    Anthropic server), or of the engine in this process with the same real drivers
    (`harness.run_engine(...)`)."""
    with ActionHarness(tmp_path / "action") as started:
        yield started
