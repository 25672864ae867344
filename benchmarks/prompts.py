"""Prompt overhead: what amelia adds to the first model request of each agent.

Read from the requests the scripted server recorded during the pipeline run. The baseline
is the bare CLI asked the issue itself with the same tools in the same repository, so the
CLI's own system prompt, tool list and context reminders cancel out. Tokens are bytes / 4
(no offline tokenizer is available: tiktoken needs to download its encodings).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from amelia.core.types import Issue
from amelia.demo import DEMO_ISSUE
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.testing import ScriptedAnthropicServer
from amelia.testing.anthropic_script import RecordedRequest, text
from amelia.testing.scripted_claude import role_of, scripted_claude_environment
from benchmarks.report import Figure
from benchmarks.sessions import bundled_cli

BYTES_PER_TOKEN = 4
_REMINDER = "<system-reminder>"
_BARE_TIMEOUT_SECONDS = 120
_SCHEMA_TOOL = "StructuredOutput"


def issue_text(issue: Issue) -> str:
    return f"{issue.title}\n\n{issue.description}"


def _utf8(value: str) -> int:
    return len(value.encode("utf-8"))


def _user_text(request: RecordedRequest) -> str:
    """The caller's own part of the first user message (the CLI's reminders left out)."""
    first: Any = ((request.body or {}).get("messages") or [{}])[0].get("content", "")
    if isinstance(first, str):
        return first
    texts = [block.get("text", "") for block in first if block.get("type") == "text"]
    return "\n".join(part for part in texts if not part.lstrip().startswith(_REMINDER))


def _tools_bytes(request: RecordedRequest) -> int:
    return _utf8(json.dumps((request.body or {}).get("tools") or []))


def _tool_names(request: RecordedRequest) -> list[str]:
    tools = (request.body or {}).get("tools") or []
    return [str(tool["name"]) for tool in tools if not str(tool["name"]).startswith("Deferred")]


def first_requests(requests: list[RecordedRequest]) -> dict[str, RecordedRequest]:
    """Each agent's first main request, in pipeline order."""
    found: dict[str, RecordedRequest] = {}
    for request in requests:
        if request.kind == "main":
            found.setdefault(role_of(request), request)
    return found


def bare_request(cwd: Path, tools: list[str], prompt: str, config_dir: Path) -> RecordedRequest:
    """The first request the bare CLI sends for `prompt` with only `tools`."""
    with ScriptedAnthropicServer(script=[[text("ok")]]) as server:
        driver = ClaudeCliDriver(env=scripted_claude_environment(server.url, config_dir))
        subprocess.run(
            [
                str(bundled_cli()),
                "-p",
                prompt,
                "--output-format",
                "stream-json",
                "--verbose",
                "--tools",
                ",".join(tools),
            ],
            cwd=cwd,
            env={**os.environ, **driver.cli_environment()},
            capture_output=True,
            timeout=_BARE_TIMEOUT_SECONDS,
            check=True,
        )
        return server.main_requests[0]


def prompt_overhead(repo: Path, config_dir: Path, requests: list[RecordedRequest]) -> list[Figure]:
    """Per agent: the issue's size, amelia's prompt and what amelia adds in total."""
    issue = issue_text(DEMO_ISSUE)
    issue_bytes = _utf8(issue)
    figures: list[Figure] = []
    for agent, request in first_requests(requests).items():
        tools = [name for name in _tool_names(request) if name != _SCHEMA_TOOL]
        bare = bare_request(repo, tools, issue, config_dir)
        system_added = _utf8(request.system_text()) - _utf8(bare.system_text())
        prompt_bytes = _utf8(_user_text(request))
        tools_added = _tools_bytes(request) - _tools_bytes(bare)
        added = system_added + tools_added + prompt_bytes - issue_bytes
        bench = f"prompt: {agent}"
        figures += [
            Figure(benchmark=bench, name="issue title + body", value=issue_bytes, unit="bytes"),
            Figure(
                benchmark=bench,
                name="system prompt added (vs bare CLI)",
                value=system_added,
                unit="bytes",
            ),
            Figure(
                benchmark=bench,
                name="first user message",
                value=prompt_bytes,
                unit="bytes",
                note="issue wrapped, plus plan/diff of earlier stages",
            ),
            Figure(
                benchmark=bench,
                name="tool definitions added",
                value=tools_added,
                unit="bytes",
            ),
            Figure(
                benchmark=bench,
                name="added beyond the issue",
                value=added,
                unit="bytes",
            ),
            Figure(
                benchmark=bench,
                name="added beyond the issue",
                value=round(added / BYTES_PER_TOKEN),
                unit="tokens",
                note="bytes / 4",
            ),
        ]
    return figures
