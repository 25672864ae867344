"""Which of the inputs, the repository's configuration file and the environment wins for
each setting of a run, decided in one place."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.action.run_settings import RunSettings, resolve_run_settings, run_target
from amelia.config import Settings, load_settings
from amelia.errors import ConfigError
from amelia.github.events import Command, Event, parse_event
from amelia.redaction import Redactor
from amelia.testing.action_inputs import runner_inputs
from amelia.testing.github import GitHubState, InMemoryGitHub

REPO = "octo/app"
CONFIG = (
    b"agents:\n  developer:\n    driver: api:openai\n    model: gpt-test\n"
    b"test_command: pytest -q\nscan:\n  limit: 7\n"
)


class FilesGitHub(InMemoryGitHub):
    """The in-memory GitHub with the files of the default branch given as bytes."""

    def __init__(self, files: dict[str, bytes]) -> None:
        state = GitHubState()
        state.add_repo(REPO)
        state.add_issue(REPO, "an issue")
        super().__init__(state, REPO)
        self.files = files

    async def get_file(self, path: str, ref: str) -> bytes | None:
        return self.files.get(path)


def _settings(chosen: dict[str, str] | None = None, **environ: str) -> Settings:
    return load_settings(
        environ={**runner_inputs("ghs_token", chosen), "GITHUB_REPOSITORY": REPO, **environ}
    )


def _event() -> Event:
    payload = {"action": "opened", "issue": {"number": 1, "title": "t"}}
    return parse_event("issues", json.dumps(payload))


async def _resolved(chosen: dict[str, str] | None = None, *, read: bool = True) -> RunSettings:
    settings, event = _settings(chosen), _event()
    return await resolve_run_settings(
        settings,
        run_target(settings, event),
        Command.model_validate({"kind": "plan", "number": 1}),
        event,
        github=FilesGitHub({".github/amelia.yml": CONFIG}),
        redactor=Redactor(),
        read_repository=read,
    )


async def test_the_file_decides_where_the_inputs_are_at_their_defaults() -> None:
    resolved = await _resolved()
    assert resolved.profile.agent("developer").driver == "api:openai"
    assert resolved.toolchain.test_command == "pytest -q"
    assert resolved.scan_bound.limit == 7


async def test_an_input_the_workflow_set_wins_over_the_file() -> None:
    resolved = await _resolved({"test_command": "make test", "scan_limit": "3"})
    assert resolved.toolchain.test_command == "make test"
    assert resolved.toolchain.test_origin == "test_command"
    assert resolved.scan_bound.limit == 3
    assert resolved.explicit_inputs == {"test_command", "scan_limit"}


async def test_a_mode_without_a_workspace_gets_the_inputs_alone() -> None:
    resolved = await _resolved(read=False)
    assert resolved.toolchain.test_command is None
    assert resolved.scan_bound.limit == 20
    assert resolved.profile.agent("developer").driver == "cli:claude"


def test_the_callers_checkout_and_dry_run_win_over_the_environment(tmp_path: Path) -> None:
    settings = _settings({"dry_run": "false"}, GITHUB_WORKSPACE=str(tmp_path / "runner"))
    default = run_target(settings, _event())
    assert (default.checkout, default.dry_run, default.dry_run_dir) == (
        tmp_path / "runner",
        False,
        None,
    )
    chosen = run_target(settings, _event(), dry_run=True, workspace=tmp_path / "mine")
    assert (chosen.checkout, chosen.dry_run) == (tmp_path / "mine", True)
    assert chosen.dry_run_dir == settings.dry_run_dir


def test_without_a_repository_the_run_stops_with_a_configuration_error() -> None:
    settings = load_settings(environ=runner_inputs("ghs_token"))
    with pytest.raises(ConfigError, match="GITHUB_REPOSITORY"):
        run_target(settings, _event())
