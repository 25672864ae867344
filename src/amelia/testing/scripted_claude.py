"""The Claude Code CLI against a ScriptedAnthropicServer: its environment, and which agent
and step a recorded request belongs to, so one script can answer all three agents."""

from __future__ import annotations

from pathlib import Path

from amelia.agents.prompts import (
    ANSWERER_INSTRUCTIONS,
    ARCHITECT_PLAN_PROMPT,
    DEVELOPER_INSTRUCTIONS,
)
from amelia.core.types import AgentRole
from amelia.testing.anthropic_script import RecordedRequest

__all__ = ["SCRIPTED_API_KEY", "role_of", "scripted_claude_environment", "step_of"]


SCRIPTED_API_KEY = "sk-ant-key-for-the-local-scripted-server"
"""The server accepts any key; the CLI only needs one to start."""


def scripted_claude_environment(
    server_url: str, config_dir: Path, *, api_key: str | None = SCRIPTED_API_KEY
) -> dict[str, str]:
    """Variables that point the CLI at the server at `server_url`, with its own config dir.

    One attempt per API call: a scripted fault ends the run instead of backed-off retries.
    `api_key=None` leaves the key out, for callers that hand it over another way.
    """
    environment = {
        "ANTHROPIC_BASE_URL": server_url,
        "CLAUDE_CONFIG_DIR": str(config_dir),
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    }
    if api_key is not None:
        environment["ANTHROPIC_API_KEY"] = api_key
    return environment


def role_of(request: RecordedRequest) -> AgentRole:
    """architect, developer, reviewer or answerer, recognised from the agent's instructions."""
    system = request.system_text()
    if ANSWERER_INSTRUCTIONS.splitlines()[0] in system:
        return "answerer"
    if ARCHITECT_PLAN_PROMPT.splitlines()[0] in system:
        return "architect"
    if DEVELOPER_INSTRUCTIONS.splitlines()[0] in system:
        return "developer"
    return "reviewer"


def step_of(request: RecordedRequest) -> int:
    """How many answers the conversation already holds (0 for its first request)."""
    messages = (request.body or {}).get("messages", [])
    return sum(1 for message in messages if message.get("role") == "assistant")
