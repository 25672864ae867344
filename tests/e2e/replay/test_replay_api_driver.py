"""A recorded run of the API driver on chat completions (`openai-chat:`), replayed offline in
another directory once the recorded checkout is gone: the model's tool call names a file by
the recorded checkout's absolute path, and the replay's answer names its own checkout's. The
recorded run is the engine in the test's process (`run_engine`), the driver and the servers
as real as a subprocess's.

The API driver asks without streaming (`"stream": false`), so its answers are whole JSON
bodies; the joining of streamed chat-completions fragments is shown on a streamed answer in
tests/unit/replay/test_streams.py."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from amelia.replay.format import load_recording
from amelia.replay.player import replay
from amelia.testing.action_harness import ActionHarness
from amelia.testing.openai_server import ScriptedOpenAIServer, text, tool_call

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

PLAN = "# Farewell Plan\n\n**Goal:** say goodbye.\n\n### Task 1: farewell\n\nAdd it.\n"


def test_a_chat_completions_run_replays_with_its_paths_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AMELIA_AGENT_USER", raising=False)
    root = tmp_path / "action"
    module = root / "workspace" / "greeter" / "core.py"
    server = ScriptedOpenAIServer(
        script=[[tool_call("read_file", {"file_path": str(module)})], [text(PLAN)]]
    )
    with ActionHarness(root) as harness, server:
        number = harness.add_issue("Add a farewell", "greeter says hello; say goodbye too.")
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"driver": "api:openai", "model": "openai-chat:gpt-4.1", "openai_api_key": "k"},
            env={"OPENAI_BASE_URL": server.url},
        )
        assert result.exit_code == 0, result.stdout + result.stderr
        # The tool read the file the answer named by its absolute path.
        (answered,) = [r for r in server.requests if '"role": "tool"' in json.dumps(r.body)]
        assert "def greet" in json.dumps(answered.body)
        recording = harness.runner_temp / "amelia" / "runs" / result.outputs["recording"]
    exchanges = load_recording(recording).exchanges
    assert [(e.provider, e.path) for e in exchanges] == [("openai", "/chat/completions")] * 2
    assert json.loads(exchanges[0].request)["stream"] is False
    answer = json.loads(exchanges[0].response)
    assert answer["object"] == "chat.completion"
    (call,) = answer["choices"][0]["message"]["tool_calls"]
    assert json.loads(call["function"]["arguments"]) == {"file_path": str(module)}
    # The recorded checkout is gone: only the replay's own can answer the tool.
    shutil.rmtree(root / "workspace")

    replayed = replay(recording, repo=tmp_path / "replay", stream=io.StringIO())

    assert replayed.same, replayed.report()
    assert replayed.plan is not None and "Farewell Plan" in replayed.plan
    (tool_result,) = [
        m for m in json.loads(exchanges[1].request)["messages"] if m["role"] == "tool"
    ]
    assert "def greet" in tool_result["content"]
