"""No recording holds a secret: the GitHub token, the model key and a base64 copy of each go
through a run (in the model's answer and in a tool's result) and are searched for in every
file of the recording, the git pack's objects included, for both drivers (their agents as
the image's agent user where the machine can run them so: see `one_agent_user`). The Claude
Code run is `amelia action` as a subprocess; the others run the engine in the test's process
(`run_engine`: what a recording holds is written by the engine, whichever process it is)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from amelia.git import run_git
from amelia.git.runner import run_git_bytes
from amelia.testing.action_harness import ActionHarness, plan_script
from amelia.testing.openai_server import ScriptedOpenAIServer
from amelia.testing.openai_server import text as openai_text
from amelia.testing.openai_server import tool_call as openai_tool_call
from tests.e2e.replay.conftest import AgentUser

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

TOKEN = "tok" + "Lw2mQ9zV4kX8sH1cR5nB"
"""Shaped like no known token: only its value can find it."""
MODEL_KEY = "key" + "Zq8vN3xT5wL1pR7kM2dF"


def _b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


PLANTED = f"{TOKEN} {MODEL_KEY} {_b64(TOKEN)} {_b64(MODEL_KEY)}"
FORBIDDEN = [TOKEN, MODEL_KEY, _b64(TOKEN), _b64(MODEL_KEY)]


def _recording_bytes(recording: Path, scratch: Path) -> bytes:
    """Every file of the recording, and every object of its git pack, as one byte string."""
    found = b"".join(path.read_bytes() for path in sorted(recording.rglob("*")) if path.is_file())
    repo = scratch / "unpacked.git"
    run_git(["init", "--quiet", "--bare", str(repo)], None)
    run_git_bytes(["index-pack", "--stdin"], repo, input=(recording / "checkout.pack").read_bytes())
    objects = run_git_bytes(["cat-file", "--batch-all-objects", "--batch"], repo)
    assert objects, "the pack holds the starting commits"
    return found + objects


def _only_recording(harness: ActionHarness) -> Path:
    (recording,) = [p for p in (harness.runner_temp / "amelia" / "runs").iterdir() if p.is_dir()]
    return recording


def _assert_clean(recording: Path, scratch: Path) -> None:
    data = _recording_bytes(recording, scratch)
    assert b"***" in data
    for secret in FORBIDDEN:
        assert secret.encode() not in data, secret


def test_a_claude_code_run_records_no_secret(tmp_path: Path, one_agent_user: AgentUser) -> None:
    command = f"echo {PLANTED}"
    script = plan_script(
        probe=command,
        roles={},
    )
    root = one_agent_user.base / "action"
    with ActionHarness(root, script=script, token=TOKEN, agent_user=one_agent_user.name) as harness:
        number = harness.add_issue("Add a farewell", f"Say goodbye. {PLANTED}")
        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"anthropic_api_key": MODEL_KEY},
        )
        assert result.exit_code == 0, result.stdout + result.stderr
        # The planted values did go through the run: the model saw them in the tool result.
        assert _b64(TOKEN) in result.model_text()
        recording = _only_recording(harness)
    _assert_clean(recording, tmp_path)
    assert (recording / "model.jsonl").read_text().count("\n") >= 2


def test_an_api_driver_run_records_no_secret(tmp_path: Path, one_agent_user: AgentUser) -> None:
    plan = "# Plan\n\n**Goal:** say goodbye.\n\n### Task 1: farewell\n\nAdd it.\n"
    server = ScriptedOpenAIServer(
        script=[
            [openai_tool_call("read_file", {"file_path": f"notes/{TOKEN}-{_b64(MODEL_KEY)}.md"})],
            [openai_tool_call("read_file", {"file_path": f"notes/{MODEL_KEY}-{_b64(TOKEN)}.md"})],
            [openai_text(plan)],
        ]
    )
    root = one_agent_user.base / "action"
    with ActionHarness(root, token=TOKEN, agent_user=one_agent_user.name) as harness, server:
        number = harness.add_issue("Add a farewell", f"Say goodbye. {PLANTED}")
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"driver": "api:openai", "model": "openai:gpt-4.1", "openai_api_key": MODEL_KEY},
            env={"OPENAI_BASE_URL": server.url},
        )
        assert result.exit_code == 0, result.stdout + result.stderr
        assert any(TOKEN in str(request.body) for request in server.requests)
        recording = _only_recording(harness)
    _assert_clean(recording, tmp_path)
    exchanges = (recording / "model.jsonl").read_text().splitlines()
    assert len(exchanges) == 3
    assert '"provider":"openai"' in exchanges[0]


def test_record_false_leaves_no_recording(tmp_path: Path) -> None:
    with ActionHarness(tmp_path / "action", script=plan_script(probe=None)) as harness:
        number = harness.add_issue("Add a farewell", "Say goodbye.")
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"record": "false"},
        )
        assert result.exit_code == 0, result.stdout + result.stderr
        assert "recording" not in result.outputs
        assert not (harness.runner_temp / "amelia" / "runs").exists() or not [
            p for p in (harness.runner_temp / "amelia" / "runs").iterdir() if p.is_dir()
        ]
