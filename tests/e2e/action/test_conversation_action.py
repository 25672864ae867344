"""`/amelia ask` through the real entry point on the API driver: pydantic-ai's OpenAI
provider against the scripted OpenAI-compatible server. What people say is specified
in-process in `tests/modes/test_conversation.py`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.testing.action_harness import ActionHarness
from amelia.testing.anthropic_script import RecordedRequest, Turn, text, tool_use
from amelia.testing.openai_server import ScriptedOpenAIServer
from amelia.testing.openai_server import text as openai_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

FAREWELL = 'def farewell(name: str) -> str:\n    return f"Goodbye, {name}!"\n'
APPROVED = {"verdict": "approved", "severity": "none", "summary": "fine", "comments": []}
ANSWER = "`greet` is defined in `greeter/core.py:4-6` and tested in `tests/test_core.py:4`."


def _text(request: RecordedRequest) -> str:
    return json.dumps(request.body)


def _developer_and_reviewer(workspace: Path) -> dict[str, list[Turn]]:
    return {
        "developer": [
            [
                tool_use(
                    "Write",
                    {"file_path": str(workspace / "greeter" / "farewell.py"), "content": FAREWELL},
                )
            ],
            [tool_use("Bash", {"command": "python -m pytest -q tests", "description": "Test"})],
            [text("- `greeter/farewell.py`: add farewell(name), mirroring greet\nTests pass.")],
        ],
        "reviewer": [[tool_use("StructuredOutput", APPROVED)], [text("ok")]],
    }


def test_ask_with_the_api_driver_offers_only_read_only_tools(harness: ActionHarness) -> None:
    number = harness.add_issue("Question", "")
    with ScriptedOpenAIServer(script=[[openai_text(ANSWER)]]) as server:
        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia ask where is greet defined?"),
            inputs={"driver": "api:openai", "model": "openai:gpt-x", "openai_api_key": "sk-e2e"},
            env={"OPENAI_BASE_URL": server.url},
        )
        requests = list(server.requests)

    assert result.exit_code == 0, result.stdout + result.stderr
    offered = {tool["name"] for tool in (requests[0].body or {})["tools"]}
    assert offered == {"read_file", "list_files", "search_code", "run_shell_command"}
    (answer,) = harness.github.comments(harness.repo, number)
    assert "/greeter/core.py#L4-L6)" in answer
    assert harness.origin_branches() == ["main"]
