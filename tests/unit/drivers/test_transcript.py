"""Transcripts and API-driver session histories are redacted before they are written."""

from __future__ import annotations

import json
from pathlib import Path

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolReturnPart,
)

from amelia.drivers.api.sessions import SessionStore
from amelia.drivers.transcript import TranscriptWriter
from amelia.redaction import MASK, Redactor

SECRET = 'plain"secret\\value'
"""A configured secret no token pattern knows, with characters JSON escapes."""
GITHUB_TOKEN = "ghs_" + "P" * 36


def test_every_transcript_line_is_redacted_and_still_json(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    with TranscriptWriter(path, redactor=Redactor(secrets=[SECRET])) as transcript:
        transcript.write("tool", {"output": f"env: KEY={SECRET} TOKEN={GITHUB_TOKEN}"})
        transcript.write("tool", {SECRET: ["nested", {"deeper": SECRET}]})
        # A private key without its end line: the pattern reaches past the string's quote.
        transcript.write("tool", {"output": "-----BEGIN RSA PRIVATE KEY-----\nMIIE", "n": 1})
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and json.dumps(SECRET)[1:-1] not in text
    assert GITHUB_TOKEN not in text and "MIIE" not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert records[0]["message"]["output"] == f"env: KEY={MASK} TOKEN={MASK}"
    assert records[1]["message"] == {MASK: ["nested", {"deeper": MASK}]}
    assert records[2]["message"] == {"output": MASK, "n": 1}


def test_without_a_redactor_token_patterns_are_still_masked(tmp_path: Path) -> None:
    path = tmp_path / "transcript.jsonl"
    with TranscriptWriter(path) as transcript:
        transcript.write("tool", {"output": GITHUB_TOKEN})
    assert json.loads(path.read_text(encoding="utf-8"))["message"] == {"output": MASK}


def test_a_session_history_is_saved_redacted_and_loads_again(tmp_path: Path) -> None:
    store = SessionStore(tmp_path, redactor=Redactor(secrets=[SECRET]))
    messages: list[ModelMessage] = [
        ModelRequest(parts=[ToolReturnPart("run_shell_command", f"KEY={SECRET}", "call-1")]),
        ModelResponse(parts=[TextPart(f"I saw {GITHUB_TOKEN}")]),
    ]
    path = store.save("session-1", messages)
    text = path.read_text(encoding="utf-8")
    assert SECRET not in text and json.dumps(SECRET)[1:-1] not in text
    assert GITHUB_TOKEN not in text
    loaded = store.load("session-1")
    assert loaded[0].parts[0].content == f"KEY={MASK}"  # type: ignore[union-attr]
    assert loaded[1].parts[0].content == f"I saw {MASK}"  # type: ignore[union-attr]
