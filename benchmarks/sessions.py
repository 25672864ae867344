"""The scripted 10-turn developer session both sides of an overhead comparison play.

Each turn is one tool call (a shell append or a file read), then a final text, so the model
costs ~0 and the time left is the agent loop, the tools and whatever wraps them.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

import claude_agent_sdk

from amelia.redaction import temporary_environment
from amelia.testing import openai_server
from amelia.testing.anthropic_script import Turn, text, tool_use

SESSION_PROMPT = "Append the numbers 0 to 9 to log.txt, one per turn, reading it back in between."
FINAL_TEXT = "Done: log.txt holds the numbers."
SCRIPTED_KEY = "benchmark-key-for-the-local-scripted-server"
OPENAI_MODEL = "scripted-model"


def bundled_cli() -> Path:
    """The Claude Code CLI shipped inside claude-agent-sdk (what ClaudeCliDriver runs)."""
    return Path(claude_agent_sdk.__file__).parent / "_bundled" / "claude"


def anthropic_session(workdir: Path, turns: int = 10) -> list[Turn]:
    """Even turns append with Bash, odd turns Read the log, then one closing text."""
    log = workdir / "log.txt"
    script: list[Turn] = []
    for number in range(turns):
        if number % 2 == 0:
            call = tool_use(
                "Bash", {"command": f"echo {number} >> log.txt", "description": "Append"}
            )
        else:
            call = tool_use("Read", {"file_path": str(log)})
        script.append([call])
    script.append([text(FINAL_TEXT)])
    return script


def openai_session(turns: int = 10) -> list[openai_server.Turn]:
    """The same shape for the API driver's tools: shell echo and file reads."""
    script: list[openai_server.Turn] = []
    for number in range(turns):
        if number % 2 == 0:
            call = openai_server.tool_call("run_shell_command", {"command": f"echo {number}"})
        else:
            call = openai_server.tool_call("read_file", {"file_path": "log.txt"})
        script.append([call])
    script.append([openai_server.text(FINAL_TEXT)])
    return script


def new_workdir(root: Path, name: str) -> Path:
    """An empty working directory with the log the session reads."""
    workdir = root / name
    workdir.mkdir(parents=True)
    (workdir / "log.txt").write_text("start\n", encoding="utf-8")
    return workdir


def environment(**values: str) -> AbstractContextManager[None]:
    """Set process environment variables for the block (the API driver reads os.environ)."""
    return temporary_environment(values)
