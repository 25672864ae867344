"""A pull request with five pushes, reviewed after each one with `review_scope: full` and with
`review_scope: incremental`: what each review costs and what it posts.

Every push adds one module of `MODULE_LINES` lines. The scripted reviewer (the Claude Code
CLI against the scripted Anthropic server, through `amelia action` on GitHub's real
`opened` and `synchronize` events) finds one thing in every module it is shown: a full
review sees all the modules so far, an incremental one only the new module. Model input
tokens are estimated as bytes / 4 (no offline tokenizer is installed) of every request the
reviewer's CLI sent to the scripted server in one run (its helper calls, session titles
and quota probes, aside); GitHub requests are every request the local GitHub recorded
during the run.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from amelia.testing.action_harness import ActionHarness, ActionRun, plan_script
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.scripted_claude import role_of, step_of
from benchmarks.bytecode import CACHE_DIR
from benchmarks.prompts import BYTES_PER_TOKEN, _user_text
from benchmarks.report import Figure

__all__ = ["MODULE_LINES", "incremental_review"]

MODULE_LINES = 60
_SHOWN_MODULE = re.compile(r"\+\+\+ b/greeter/step(\d+)\.py")
_CACHED = {"PYTHONPYCACHEPREFIX": str(CACHE_DIR)}
BENCHMARK = "incremental review"


def module(step: int) -> str:
    """A module of `MODULE_LINES` lines, different for every step."""
    lines = [f'"""Step {step} of the change."""', ""]
    for n in range((MODULE_LINES - 2) // 3):
        lines += [f"def step{step}_part{n}(x: int) -> int:", f"    return x * {n} + {step}", ""]
    return "\n".join(lines[:MODULE_LINES]) + "\n"


class Reviewer:
    """The scripted reviewer: one minor finding on the first line of every module the diff
    shows, and approve. Keeps how many findings it returned."""

    def __init__(self) -> None:
        self.returned = 0

    def __call__(self, request: RecordedRequest) -> Turn:
        if role_of(request) != "reviewer":
            return plan_script()(request)
        if step_of(request) > 0:
            return [text("ok")]
        shown = sorted({int(n) for n in _SHOWN_MODULE.findall(_user_text(request))})
        comments = [
            {
                "path": f"greeter/step{n}.py",
                "line": 1,
                "severity": "minor",
                "body": f"Say what step {n} is for",
            }
            for n in shown
        ]
        self.returned += len(comments)
        verdict = {"verdict": "approved", "summary": "fine", "comments": comments}
        return [tool_use("StructuredOutput", verdict)]


class Push:
    """What one review run cost and posted."""

    def __init__(self, result: ActionRun, findings: int) -> None:
        if result.exit_code != 0 or result.outputs.get("conclusion") != "success":
            raise RuntimeError(f"review exited {result.exit_code}: {result.stderr[-600:]}")
        main = [r for r in result.model_requests if r.kind == "main"]
        self.input_tokens = sum(
            math.ceil(len(json.dumps(r.body or {})) / BYTES_PER_TOKEN) for r in main
        )
        first = [r for r in main if step_of(r) == 0]
        self.prompt_tokens = math.ceil(len(_user_text(first[0]).encode()) / BYTES_PER_TOKEN)
        self.github_requests = len(result.github_requests)
        posts = [
            r.body
            for r in result.github_requests
            if r.method == "POST" and r.path.endswith("/reviews") and isinstance(r.body, dict)
        ]
        self.inline = sum(len(body.get("comments") or []) for body in posts)
        self.findings = findings
        """Findings the reviewer returned in this run."""


def five_pushes(root: Path, scope: str, pushes: int) -> list[Push]:
    inputs = {"review_scope": scope}
    reviewer = Reviewer()
    runs: list[Push] = []

    def review(event: dict[str, Any]) -> None:
        before = reviewer.returned
        result = harness.run("pull_request", event, inputs=inputs, env=_CACHED)
        runs.append(Push(result, reviewer.returned - before))

    with ActionHarness(root, script=reviewer) as harness:
        number, opened = harness.open_pull("feature", {"greeter/step1.py": module(1)})
        review(opened)
        for step in range(2, pushes + 1):
            files = {f"greeter/step{step}.py": module(step)}
            _sha, pushed = harness.push_to_pull(number, "feature", files)
            review(pushed)
    return runs


def incremental_review(root: Path, pushes: int = 5) -> list[Figure]:
    # Same-length working directories: the paths are part of what the CLI sends the model.
    measured = {
        scope: five_pushes(root / str(n), scope, pushes)
        for n, scope in enumerate(("full", "incremental"))
    }
    figures: list[Figure] = []
    for index in range(pushes):
        for scope, runs in measured.items():
            run = runs[index]
            label = f"push {index + 1}, {scope}"
            figures += [
                Figure(
                    benchmark=BENCHMARK,
                    name=f"{label}: reviewer input tokens",
                    value=run.input_tokens,
                    unit="tokens",
                ),
                Figure(
                    benchmark=BENCHMARK,
                    name=f"{label}: reviewer's first message (bytes / 4)",
                    value=run.prompt_tokens,
                    unit="tokens",
                ),
                Figure(
                    benchmark=BENCHMARK,
                    name=f"{label}: GitHub requests",
                    value=run.github_requests,
                    unit="requests",
                ),
            ]
    for scope, runs in measured.items():
        figures += [
            Figure(
                benchmark=BENCHMARK,
                name=f"{scope}: findings the reviewer returned, {pushes} pushes",
                value=sum(run.findings for run in runs),
                unit="findings",
            ),
            Figure(
                benchmark=BENCHMARK,
                name=f"{scope}: inline comments posted, {pushes} pushes",
                value=sum(run.inline for run in runs),
                unit="comments",
            ),
            Figure(
                benchmark=BENCHMARK,
                name=f"{scope}: reviewer input tokens, {pushes} pushes",
                value=sum(run.input_tokens for run in runs),
                unit="tokens",
            ),
        ]
    return figures
