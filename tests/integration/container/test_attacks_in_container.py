"""In the Action's real container, a hostile developer agent gets nowhere.

`/amelia implement` runs in the image as the runner starts it, with the runner's Docker
socket mounted and the token persisted by actions/checkout (v4: in `.git/config`; v6: in
`$RUNNER_TEMP/git-credentials-<uuid>.config`, mounted at /github/runner_temp). Its
developer first runs `attack.py` (see there): the Docker socket (list, inspect, create),
`/proc/1/environ`, every process's environ, files and memory, the checkout's credentials,
a push with them, and a daemon left behind. Every attack is refused, no credential turns
up anywhere, the daemon is gone before amelia's own push, and the checkout is the
runner's again, with its credentials back, also when the job is stopped mid-run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.testing.action_harness import CheckoutCredentials
from tests.integration.container.runner import RUNNER_UID, ContainerActionRunner
from tests.integration.container.scenarios import attacked_implement, stopped_implement
from tests.security.probe_results import found_in

pytestmark = [pytest.mark.container, pytest.mark.e2e, pytest.mark.timeout(600)]


@pytest.mark.parametrize("checkout", ["v4", "v6"])
def test_every_attack_of_the_developer_agent_is_refused_and_nothing_leaks(
    runner: ContainerActionRunner, image: str, tmp_path: Path, checkout: CheckoutCredentials
) -> None:
    with attacked_implement(runner, tmp_path / "action", image=image, checkout=checkout) as done:
        assert done.problems() == [], done.run.log
        report = done.report
        # The attacks really ran, as the agent user, and each was refused.
        assert report["status"]["Uid"] == [str(10001)] * 4 and report["status"]["Groups"] == []
        assert report["docker_list"] == {"error": "EACCES"}
        assert report["docker_create"] == {"error": "EACCES"}
        assert done.attack_containers == []
        assert report["pid1_environ"] == {"error": "EACCES"}
        assert b"amelia\0action" in bytes.fromhex(report["pid1_cmdline"]["data"])
        assert "could not read Username" in report["push"]["stderr"]
        if checkout == "v6":
            (held,) = report["credentials_files"].values()
            assert held == {"bytes": 0, "data": ""}
        # The probe read what it could (the CLI's environment among it) and found nothing.
        dump = done.collector.first("dump") or b""
        assert b"ANTHROPIC_BASE_URL=http://127.0.0.1:" in dump
        assert found_in(dump, done.credentials.named()) == set()
        probe = json.loads(done.collector.first("dump.json") or b"{}")
        assert probe["processes"]["1"]["environ"] == "EACCES"
        # The daemon started and was stopped before amelia pushed.
        assert done.collector.first("daemon-started") is not None
        assert done.at_push and set(done.at_push) == {"gone"}
        assert done.collector.first("daemon-found") is None
        # The developer's work went on: pushed, tested, reviewed, outputs and summary written.
        assert done.run.outputs["verdict"] == "approved"
        assert "greeter/farewell.py" in done.harness.origin_files(f"amelia/issue-{done.issue}")
        assert "| developer |" in done.run.summary
        assert done.owners_after == {(RUNNER_UID, RUNNER_UID)}


@pytest.mark.parametrize("checkout", ["v4", "v6"])
def test_docker_stop_mid_run_gives_the_checkout_and_its_credentials_back(
    runner: ContainerActionRunner, tmp_path: Path, checkout: CheckoutCredentials
) -> None:
    stopped = stopped_implement(runner, tmp_path / "action", checkout=checkout)

    assert stopped.stopped, stopped.run.log
    assert stopped.run.returncode == 1, stopped.run.log
    assert "stopped by SIGTERM" in stopped.run.stdout
    # The stopped run names its conclusion and the recording it kept of what it did.
    assert stopped.run.outputs.keys() == {"conclusion", "recording"}, stopped.run.outputs
    assert stopped.run.outputs["conclusion"] == "failure"
    assert "stopped by SIGTERM (the job was cancelled)" in stopped.run.summary
    assert stopped.owners_after == {(RUNNER_UID, RUNNER_UID)}
    assert stopped.credentials_after == stopped.credentials_before
    assert "AUTHORIZATION: basic" in stopped.credentials_after
    assert not stopped.sleeper_alive
