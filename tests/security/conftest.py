"""Fixtures for the containment tests: a git checkout, planted secrets, scripted model servers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from amelia.drivers.runtime import DriverEnvironment
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from tests.git_helpers import init_repo

PLANTED_SECRETS = {
    "GITHUB_TOKEN": "ghs_plantedGithubToken0001",
    "GH_TOKEN": "gho_plantedGhToken00000002",
    "INPUT_GITHUB_TOKEN": "ghp_plantedInputToken00003",
    "INPUT_ANTHROPIC_API_KEY": "sk-ant-api03-plantedInput0004",
    "INPUT_OPENAI_API_KEY": "sk-proj-plantedInputOpenai0005",
    "ACTIONS_RUNTIME_TOKEN": "eyJplantedRuntimeToken0006",
    "AWS_SECRET_ACCESS_KEY": "plantedAwsSecretAccessKey0007",
    "PGPASSWORD": "plantedPgPassword00008",
    "MYSQL_PWD": "plantedMysqlPwd000009",
    "DATABASE_URL": "postgres://app:plantedDbUrl00010@db/app",
    "CI_JOB_JWT": "plantedCiJobJwt000011",
    "SENTRY_DSN": "https://plantedSentryDsn0012@o1.ingest.sentry.io/1",
    "STRIPE_SK": "plantedStripeSk000013",
}
"""The credentials a GitHub runner may hold; none may reach a command an agent runs."""

HARMLESS = ("AMELIA_VISIBLE_MARKER", "visible-marker-value")
"""A non-secret variable that must pass, proving the tool really printed its environment."""


def process_environment() -> DriverEnvironment:
    """What amelia's settings hand a driver: this process's environment, and its home."""
    home = os.environ.get("AMELIA_HOME")
    return DriverEnvironment(inherited=dict(os.environ), home=Path(home) if home else None)


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    for name, value in PLANTED_SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv(*HARMLESS)
    return dict(PLANTED_SECRETS)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A git repository with one commit, as an agent's working tree."""
    return init_repo(tmp_path / "checkout", {"README.md": "# demo\nhello\n"})


@pytest.fixture
def anthropic_servers() -> Iterator[list[ScriptedAnthropicServer]]:
    started: list[ScriptedAnthropicServer] = []
    yield started
    for server in started:
        server.stop()


@pytest.fixture
def openai_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        monkeypatch.setenv("AMELIA_HOME", str(tmp_path / "amelia-home"))
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-model-key")
        yield server
