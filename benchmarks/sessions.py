"""The scripted developer sessions both sides of an overhead comparison play.

Each turn asks for one or more tool calls (shell appends and file reads, in turn), then a
final text, so the model costs ~0 and the time left is the agent loop, the tools and
whatever wraps them. The short session is 10 turns of one call; the long one 300 calls in
30 turns of 10, so that the whole history the client sends with every request (which the
bare side pays for too) stays a small part of the time.
"""

from __future__ import annotations

from pathlib import Path

import claude_agent_sdk

from amelia.testing import openai_server
from amelia.testing.anthropic_script import Turn, text, tool_use

SESSION_PROMPT = "Append the numbers 0 to 9 to log.txt, one per turn, reading it back in between."
FINAL_TEXT = "Done: log.txt holds the numbers."
SCRIPTED_KEY = "benchmark-key-for-the-local-scripted-server"
OPENAI_MODEL = "scripted-model"


def bundled_cli() -> Path:
    """The Claude Code CLI shipped inside claude-agent-sdk (what ClaudeCliDriver runs)."""
    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def _numbers(turns: int, calls_per_turn: int) -> list[range]:
    """The call numbers of each turn: 0, 1, 2 … in order."""
    return [range(turn * calls_per_turn, (turn + 1) * calls_per_turn) for turn in range(turns)]


def anthropic_session(workdir: Path, turns: int = 10, calls_per_turn: int = 1) -> list[Turn]:
    """Even calls append their number with Bash, odd calls Read the log; then a closing text."""
    log = workdir / "log.txt"
    script: list[Turn] = []
    for numbers in _numbers(turns, calls_per_turn):
        script.append(
            [
                tool_use("Bash", {"command": f"echo {number} >> log.txt", "description": "Append"})
                if number % 2 == 0
                else tool_use("Read", {"file_path": str(log)})
                for number in numbers
            ]
        )
    script.append([text(FINAL_TEXT)])
    return script


def openai_session(turns: int = 10, calls_per_turn: int = 1) -> list[openai_server.Turn]:
    """The same shape for the API driver's tools: shell echo and file reads."""
    script: list[openai_server.Turn] = []
    for numbers in _numbers(turns, calls_per_turn):
        script.append(
            [
                openai_server.tool_call("run_shell_command", {"command": f"echo {number}"})
                if number % 2 == 0
                else openai_server.tool_call("read_file", {"file_path": "log.txt"})
                for number in numbers
            ]
        )
    script.append([openai_server.text(FINAL_TEXT)])
    return script


def new_workdir(root: Path, name: str) -> Path:
    """An empty working directory with the log the session reads."""
    workdir = root / name
    workdir.mkdir(parents=True)
    (workdir / "log.txt").write_text("start\n", encoding="utf-8")
    return workdir
