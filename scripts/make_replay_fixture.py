"""Make the recording the suite replays as a regression test.

    uv run python -m scripts.make_replay_fixture [DESTINATION]

Runs `/amelia plan` and then `/amelia implement` against the local scripted servers (the
Claude Code CLI against the scripted Anthropic server, the local GitHub, a bare origin),
with recording on, and copies the implement run's recording to DESTINATION (default:
tests/fixtures/recordings/implement-farewell), replacing what is there.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use

DEFAULT_DESTINATION = Path("tests/fixtures/recordings/implement-farewell")
FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
VERDICT = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "farewell mirrors greet",
    "comments": [
        {"path": "greeter/farewell.py", "line": 2, "severity": "minor", "body": "Add a docstring"}
    ],
}


def record(destination: Path) -> Path:
    """Record the run into `destination`; returns it."""
    with tempfile.TemporaryDirectory(prefix="amelia-fixture-") as scratch:
        root = Path(scratch) / "action"
        workspace = root / "workspace"
        developer: list[Turn] = [
            [
                tool_use(
                    "Write",
                    {"file_path": str(workspace / "greeter/farewell.py"), "content": FAREWELL},
                )
            ],
            [text("Added greeter/farewell.py")],
        ]
        reviewer: list[Turn] = [[tool_use("StructuredOutput", VERDICT)], [text("ok")]]
        script = plan_script(probe=None, roles={"developer": developer, "reviewer": reviewer})
        with ActionHarness(root, script=script) as harness:
            number = harness.add_issue("Add a farewell", "greeter says hello; say goodbye too.")
            planned = harness.run("issue_comment", harness.comment_event(number, "/amelia plan"))
            if planned.exit_code != 0:
                raise SystemExit(f"the plan run failed:\n{planned.stderr}")
            harness.fresh_checkout()
            done = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))
            if done.exit_code != 0:
                raise SystemExit(f"the implement run failed:\n{done.stderr}")
            recording = harness.runner_temp / "amelia" / "runs" / done.outputs["recording"]
            if destination.exists():
                shutil.rmtree(destination)
            shutil.copytree(recording, destination)
    return destination


def main(argv: list[str]) -> None:
    destination = Path(argv[0]) if argv else DEFAULT_DESTINATION
    made = record(destination)
    size = sum(p.stat().st_size for p in made.iterdir())
    print(f"recorded {made} ({size // 1024} KiB)")


if __name__ == "__main__":
    main(sys.argv[1:])
