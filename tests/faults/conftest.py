"""Fault-injection benches: the Action's engine run in-process (`run_action` with the
runner's environment in `ActionRequest`, scripted drivers and the run's streams in
`ActionPorts`) against the local GitHub server through the real adapter, a bare origin and
scripted agents, with retries made quick by the documented AMELIA_GITHUB_RETRY_* /
AMELIA_GITHUB_TIMEOUT / AMELIA_GIT_RETRY_BACKOFF knobs (no real back-off sleeps)."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from amelia.action.engine import ActionPorts, ActionRequest, run_action
from amelia.config import load_settings
from amelia.core.types import Profile, ToolProfileName
from amelia.drivers.base import AgenticMessage, DriverInterface
from amelia.github.client import GitHubClient
from amelia.github.markers import progress_marker
from amelia.pipeline import AgentRole, MakeDriver
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness, parse_outputs
from amelia.testing.github_server import FakeGitHubServer, RecordedRequest
from amelia.testing.scripted_driver import RecordedCall, ScriptedDriver, result

QUICK_RETRIES = {
    "AMELIA_GITHUB_RETRY_MAX_ATTEMPTS": "3",
    "AMELIA_GITHUB_RETRY_BACKOFF_BASE": "0.01",
    "AMELIA_GITHUB_RETRY_BACKOFF_MAX": "0.05",
    "AMELIA_GITHUB_TIMEOUT": "1",
    "AMELIA_GITHUB_THROTTLE": "0",
    "AMELIA_GIT_RETRY_BACKOFF": "0.01",
}
"""Three attempts a call, 10-50 ms apart, one second per request, no pause between writes;
git's pushes and fetches 10 and 20 ms apart."""
STALL_SECONDS = 2.5
"""How long a stalled GitHub request hangs: longer than AMELIA_GITHUB_TIMEOUT."""


APPROVAL: dict[str, Any] = {"verdict": "approved", "severity": "none", "summary": "Looks right"}
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'


def _write_farewell(call: RecordedCall) -> list[AgenticMessage]:
    """The developer's work: one new file in the worktree it was given."""
    assert call.cwd is not None
    (Path(call.cwd) / "greeter" / "farewell.py").write_text(FAREWELL, encoding="utf-8")
    return [result("Added greeter/farewell.py")]


@dataclass(frozen=True)
class EngineRun:
    """One in-process `amelia action` run and what the GitHub server saw during it."""

    exit_code: int
    stdout: str
    outputs: dict[str, str]
    summary: str
    github_requests: list[RecordedRequest]

    def requests_to(self, method: str, path_regex: str) -> list[RecordedRequest]:
        return [
            r
            for r in self.github_requests
            if r.method == method and re.fullmatch(path_regex, r.path)
        ]


class EngineBench:
    """An `ActionHarness` whose runs call `run_action()` in this process."""

    def __init__(self, harness: ActionHarness) -> None:
        self.harness = harness
        self.plan = DEFAULT_PLAN
        self.developer: Callable[[RecordedCall], list[AgenticMessage]] = _write_farewell
        """The developer's work in the worktree it is given."""
        self.verdict: dict[str, Any] = APPROVAL
        """What the reviewer answers."""
        self.reviewer_prompts: list[str] = []
        """What the reviewer was asked, one prompt a review."""
        self.architect_calls = 0
        self.during_architect: Callable[[], object] | None = None
        """Runs while the architect works: the moment to change the world under the run."""
        self.github_waits: list[float] | None = None
        """See `record_github_waits`."""
        self._runs = 0

    def record_github_waits(self) -> list[float]:
        """From now on the runs' GitHub client, made here as the run would make it from its
        settings, records each wait between attempts in the list returned instead of
        sleeping it: a `Retry-After` is in whole seconds, and only what was asked is
        checked."""
        self.github_waits = []
        return self.github_waits

    def _github(self, env: dict[str, str]) -> GitHubClient | None:
        if self.github_waits is None:
            return None
        settings = load_settings(environ=env)
        assert settings.github_token is not None
        return GitHubClient(
            settings.github_token,
            self.harness.repo,
            base_url=settings.runner.api_url,
            policy=settings.github_retry,
            timeout=settings.github_timeout,
            throttle=settings.github_throttle,
            sleep=self.github_waits.append,
        )

    @property
    def github(self) -> FakeGitHubServer:
        return self.harness.github

    def _make_driver(self, profile: Profile, **options: object) -> MakeDriver:
        def make(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
            if role == "developer":
                return ScriptedDriver([self.developer])
            if role == "reviewer":

                def review(call: RecordedCall) -> list[AgenticMessage]:
                    self.reviewer_prompts.append(call.prompt)
                    return [result(json.dumps(self.verdict))]

                return ScriptedDriver([review])
            self.architect_calls += 1

            def answer(call: RecordedCall) -> list[AgenticMessage]:
                if self.during_architect is not None:
                    self.during_architect()
                return [result(self.plan)]

            return ScriptedDriver([answer])

        return make

    def progress_comments(self, number: int = 1) -> list[str]:
        return [
            body
            for body in self.harness.github.comments(self.harness.repo, number)
            if progress_marker(number) in body
        ]

    def run_plan(self, number: int = 1, extra: dict[str, str] | None = None) -> EngineRun:
        return self.run("issue_comment", self.harness.comment_event(number, "/amelia plan"), extra)

    def run(
        self,
        event_name: str,
        payload: dict[str, Any],
        extra: dict[str, str] | None = None,
        request: ActionRequest | None = None,
    ) -> EngineRun:
        """`amelia action` for one event, in this process (`request`: as `amelia run` asks)."""
        h = self.harness
        self._runs += 1
        run_dir = h.root / f"engine-run-{self._runs}"
        run_dir.mkdir()
        event = run_dir / "event.json"
        event.write_text(json.dumps(payload), encoding="utf-8")
        outputs, summary = run_dir / "github_output", run_dir / "step_summary"
        outputs.touch()
        summary.touch()
        env = h.environment(event_name, event, outputs, summary)
        env.update(QUICK_RETRIES)
        env["AMELIA_HOME"] = str(h.runner_temp / "amelia")
        env.update(extra or {})
        before = len(h.github.requests)
        stdout, stderr = io.StringIO(), io.StringIO()
        github = self._github(env)
        ports = ActionPorts(github=github, drivers=self._make_driver, stdout=stdout, stderr=stderr)
        try:
            code = run_action(request=replace(request or ActionRequest(), environ=env), ports=ports)
        finally:
            if github is not None:
                github.close()
        return EngineRun(
            exit_code=code,
            stdout=stdout.getvalue() + stderr.getvalue(),
            outputs=parse_outputs(outputs.read_text(encoding="utf-8")),
            summary=summary.read_text(encoding="utf-8"),
            github_requests=list(h.github.requests)[before:],
        )


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[EngineBench]:
    # The engine points loguru at its own redacting sink on the run's stream; the shared
    # conftest puts loguru back once the test is over.
    with ActionHarness(tmp_path / "action") as harness:
        yield EngineBench(harness)
