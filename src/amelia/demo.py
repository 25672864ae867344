"""`amelia demo`: the whole pipeline offline, with nothing but this package installed.

A throwaway sample repository (a tiny Python project with git history) is planned,
changed and reviewed by the real Claude Code CLI bundled with claude-agent-sdk, whose model
is a `ScriptedAnthropicServer` on 127.0.0.1. The script answers by role (recognised from
the agent's instructions) and by step (how many answers the conversation already holds):
the architect reads a file and the git log, then answers with a plan; the developer reads,
edits and writes files and runs Python; the reviewer answers with structured output.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from amelia.core.state import ExecutionState
from amelia.core.types import Issue, Profile, ToolProfileName
from amelia.drivers.base import DriverInterface
from amelia.git import collect_changes
from amelia.pipeline import AgentRole, RunContext, current_head, run_pipeline
from amelia.pipeline.sinks import JsonlTranscriptSink, Sink, TerminalProgressSink
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.anthropic_server import ScriptedAnthropicServer
from amelia.testing.sample_repo import create_sample_repo
from amelia.testing.scripted_claude import role_of, scripted_claude_environment, step_of

__all__ = [
    "DEMO_ISSUE",
    "DEMO_PLAN",
    "DEMO_VERDICT",
    "FAREWELL_FUNCTION",
    "FAREWELL_TEST",
    "DemoReport",
    "demo_script",
    "run_demo",
]


DEMO_ISSUE = Issue(
    id="1",
    number=1,
    title="Add a farewell function",
    description="greeter can say hello but not goodbye. Add `farewell(name)` with a test.",
)

DEMO_PLAN = """# Farewell Implementation Plan

**Goal:** Add `farewell(name)` to greeter, mirroring `greet(name)`.
**Architecture:** One pure function next to `greet` in `greeter/core.py`, with its own test.
**Key Files:** `greeter/core.py`, `tests/test_farewell.py`

### Task 1: farewell function

**Files:**
- Modify: `greeter/core.py` (after the `greet` function)
- Test: `tests/test_farewell.py`

**Intent:** Say goodbye the way `greet` says hello.

**Approach:**
- Follow the pattern of `greet` in `greeter/core.py:4-6`
- Interface: `def farewell(name: str) -> str`

**Test Criteria:**
- `farewell("Ada") == "Goodbye, Ada!"`
"""

FAREWELL_FUNCTION = (
    "\n\ndef farewell(name: str) -> str:\n"
    '    """Return a friendly goodbye for `name`."""\n'
    '    return f"Goodbye, {name}!"\n'
)
FAREWELL_TEST = (
    "from greeter.core import farewell\n\n\n"
    "def test_farewell() -> None:\n"
    '    assert farewell("Ada") == "Goodbye, Ada!"\n'
)
DEMO_VERDICT: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "farewell mirrors greet and is tested.",
    "comments": [
        {
            "path": "greeter/core.py",
            "line": 11,
            "severity": "minor",
            "body": "Consider sharing the punctuation with greet once a third greeting appears.",
        },
        {"path": "tests/test_farewell.py", "line": 1, "severity": "none", "body": "✓ tests pass"},
    ],
}


class DemoReport(BaseModel):
    """Where the demo left its results."""

    model_config = ConfigDict(frozen=True)

    workdir: Path
    repository: Path
    plan: Path
    diff: Path
    verdict: Path
    approved: bool
    transcript: Path


def demo_script(repo: Path) -> Any:
    """The model's side of the demo, as a function of each request."""
    core = str(repo / "greeter" / "core.py")
    turns: dict[AgentRole, list[Turn]] = {
        "architect": [
            [text("Let me look at the existing greeting."), tool_use("Read", {"file_path": core})],
            [tool_use("Bash", {"command": "git log --oneline", "description": "History"})],
            [text(DEMO_PLAN)],
        ],
        "developer": [
            [text("Reading the file the plan names."), tool_use("Read", {"file_path": core})],
            [
                tool_use(
                    "Edit",
                    {
                        "file_path": core,
                        "old_string": '    return f"Hello, {name}!"\n',
                        "new_string": '    return f"Hello, {name}!"\n' + FAREWELL_FUNCTION,
                    },
                )
            ],
            [
                tool_use(
                    "Write",
                    {
                        "file_path": str(repo / "tests" / "test_farewell.py"),
                        "content": FAREWELL_TEST,
                    },
                )
            ],
            [
                tool_use(
                    "Bash",
                    {
                        "command": 'python3 -c "from greeter.core import farewell; '
                        "print(farewell('Ada'))\"",
                        "description": "Try the new function",
                    },
                )
            ],
            [text("Added `farewell` to greeter/core.py and tests/test_farewell.py.")],
        ],
        "reviewer": [
            [tool_use("StructuredOutput", DEMO_VERDICT)],
            [text("Review submitted.")],
        ],
    }

    def answer(request: RecordedRequest) -> Turn:
        script = turns[role_of(request)]
        return script[min(step_of(request), len(script) - 1)]

    return answer


async def _run(workdir: Path, inherited: Mapping[str, str]) -> DemoReport:
    from amelia.drivers.cli.claude import ClaudeCliDriver
    from amelia.drivers.runtime import DriverEnvironment

    repo = create_sample_repo(workdir / "greeter")
    transcript = workdir / "events.jsonl"
    with ScriptedAnthropicServer(script=demo_script(repo)) as server:
        environment = scripted_claude_environment(server.url, workdir / "claude-config")

        def make_driver(role: AgentRole, tool_profile: ToolProfileName) -> DriverInterface:
            return ClaudeCliDriver(
                tool_profile=tool_profile,
                max_turns=10,
                env=environment,
                environment=DriverEnvironment(inherited=inherited, home=workdir / "amelia-home"),
            )

        base = await current_head(repo)
        async with TerminalProgressSink(stream=sys.stderr) as progress:
            sinks: list[Sink] = [progress, JsonlTranscriptSink(transcript)]
            context = RunContext(
                repo_dir=repo,
                make_driver=make_driver,
                profile=Profile(timeout_seconds=300, max_review_iterations=1),
                sinks=sinks,
                workflow_id="demo",
            )
            state = await run_pipeline(ExecutionState(issue=DEMO_ISSUE), context, base_ref=base)

    changes = await collect_changes(repo, base)
    diff_path = workdir / "change.diff"
    diff_path.write_text(changes.as_text() + "\n", encoding="utf-8")
    verdict_path = workdir / "verdict.json"
    review = state.last_review
    verdict_path.write_text(
        json.dumps(review.model_dump(mode="json") if review else None, indent=2) + "\n",
        encoding="utf-8",
    )
    return DemoReport(
        workdir=workdir,
        repository=repo,
        plan=repo / (state.plan_path or ""),
        diff=diff_path,
        verdict=verdict_path,
        approved=review is not None and review.approved,
        transcript=transcript,
    )


def run_demo(
    *, output: Path | None = None, inherited: Mapping[str, str] | None = None
) -> DemoReport:
    """Run the demo in `output` (default: a new temp dir, kept so you can look around).

    `inherited` is the environment the Claude Code CLI starts from (its secrets are
    blanked); the command line passes its own.
    """
    workdir = output or Path(tempfile.mkdtemp(prefix="amelia-demo-"))
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(_run(workdir.resolve(), dict(inherited or {})))
