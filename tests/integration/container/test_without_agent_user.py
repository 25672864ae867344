"""The attack checks fail on an image whose agent user is removed: they can tell.

The image is the Action's own with one more layer, `userdel amelia-agent`. As shipped,
amelia then refuses to start any agent (they would run as root). A workflow that insists,
with `AMELIA_AGENT_USER: none` in the step's `env:`, gets agents that run as root: the
same attack as in test_attacks_in_container.py then opens the Docker socket, creates a
container, and reads the step's credentials out of `docker inspect`, and
`AttackOutcome.problems()` names each of those.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.container.engine import Engine
from tests.integration.container.runner import ContainerActionRunner
from tests.integration.container.scenarios import attacked_implement

pytestmark = [pytest.mark.container, pytest.mark.e2e, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def without_agent_user(
    engine: Engine, image: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """The Action's image minus its agent user: its id (tags of this test process only, as
    another one may build and remove its own meanwhile)."""
    unique = f"{image.removeprefix('sha256:')[:12]}-{os.getpid()}"
    base = f"amelia:test-base-{unique}"
    engine.run("tag", image, base)
    context = tmp_path_factory.mktemp("without-agent-user")
    (context / "Dockerfile").write_text(
        f"FROM {base}\n"
        "RUN userdel amelia-agent && (groupdel amelia-agent 2>/dev/null || true) "
        "&& ! id amelia-agent\n"
    )
    tag = f"amelia:test-without-agent-user-{unique}"
    variant = engine.build(tag, context)
    yield variant
    engine.run("rmi", tag, base, check=False)


def test_without_the_agent_user_amelia_stops_before_any_agent(
    engine: Engine, without_agent_user: str, tmp_path: Path
) -> None:
    runner = ContainerActionRunner(engine, without_agent_user)
    with attacked_implement(runner, tmp_path / "action", image=without_agent_user) as done:
        assert done.problems() == [
            "amelia action exited 1",
            "conclusion is 'failure'",
            "the attack did not run",
        ]
        assert "the agent user amelia-agent does not exist in this image" in done.run.stdout
        assert done.harness.model.requests == []


def test_agents_run_as_root_anyway_and_the_attack_checks_catch_it(
    engine: Engine, without_agent_user: str, tmp_path: Path
) -> None:
    runner = ContainerActionRunner(engine, without_agent_user)
    with attacked_implement(
        runner,
        tmp_path / "action",
        image=without_agent_user,
        env={"AMELIA_AGENT_USER": "none"},
    ) as done:
        problems = done.problems()
        assert done.run.returncode == 0, done.run.log
        assert problems[0] == "the agent ran as uid ['0', '0', '0', '0'] groups ['0']"
        assert any(p.startswith("the Docker socket answered docker_list") for p in problems)
        assert any(p.startswith("the Docker socket answered docker_create") for p in problems)
        assert done.attack_containers == [f"amelia-attack-{done.marker}"]
        assert (
            "ACTIONS_RUNTIME_TOKEN, anthropic_api_key, github_token leaked into "
            "what the agent sent out"
        ) in problems
        # Through the socket: `docker inspect` of amelia's own container holds the step's
        # whole environment.
        inspected = b"".join(done.collector.received["docker-inspect"])
        assert f"INPUT_GITHUB_TOKEN={done.credentials.github_token}".encode() in inspected
