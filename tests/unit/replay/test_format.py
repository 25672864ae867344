"""Recordings are versioned: another version, or no recording, is one clear line, exit 2.
Secrets are masked in the recorded environment, the names of the MCP servers' secrets
kept, and a replay gives each masked value a placeholder."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from amelia import __version__
from amelia.isolation.proxy import ProxiedExchange
from amelia.mcp.values import parse_mcp_secrets
from amelia.replay.format import (
    FORMAT_VERSION,
    RecordingError,
    load_recording,
    masked_secret,
    unmasked_secret,
)
from amelia.replay.recorder import recording_environment
from amelia.testing.replay import start_recorder


def _manifest(directory: Path, **fields: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    manifest = {
        "version": FORMAT_VERSION,
        "id": "20260101T000000Z-abcdef12",
        "created_at": "2026-01-01T00:00:00+00:00",
        "amelia_version": "0.0.0",
        "event_name": "issue_comment",
        "event": {},
        "repository": "octo/app",
        **fields,
    }
    (directory / "recording.json").write_text(json.dumps(manifest), encoding="utf-8")
    return directory


def test_a_recording_of_this_version_is_read(tmp_path: Path) -> None:
    recording = load_recording(_manifest(tmp_path / "r"))
    assert recording.manifest.version == FORMAT_VERSION
    assert recording.exchanges == [] and recording.calls == []


def test_another_version_is_refused_naming_both(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r", version=FORMAT_VERSION + 1)
    with pytest.raises(RecordingError) as caught:
        load_recording(directory)
    assert f"this amelia reads version {FORMAT_VERSION} only" in caught.value.message
    assert "the amelia version that made it (0.0.0)" in caught.value.message


def test_another_version_said_to_be_made_by_this_amelia_gets_no_circular_advice(
    tmp_path: Path,
) -> None:
    directory = _manifest(tmp_path / "r", version=FORMAT_VERSION + 1, amelia_version=__version__)
    with pytest.raises(RecordingError) as caught:
        load_recording(directory)
    assert "no amelia version it names can replay it" in caught.value.message


# JSON's `true` and `1.0` equal 1 in Python.
@pytest.mark.parametrize("version", [0, -1, "1", None, True, 1.0, [1]])
def test_what_is_no_whole_version_number_is_refused(tmp_path: Path, version: object) -> None:
    directory = _manifest(tmp_path / "r", version=version)
    with pytest.raises(RecordingError, match="has no valid format version"):
        load_recording(directory)


def test_amelia_replay_of_an_old_recording_exits_2_in_one_line(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r", version=FORMAT_VERSION + 1)
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", str(directory)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1
    assert f"format version {FORMAT_VERSION + 1}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_directory_without_a_recording_exits_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "replay", str(tmp_path)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "is not a recording" in done.stderr


@pytest.mark.parametrize("kind", ["missing", "a-file"])
def test_a_path_that_is_no_directory_is_named_for_what_it_is(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "recording"
    if kind == "a-file":
        path.write_text("x", encoding="utf-8")
    expected = "does not exist" if kind == "missing" else "a recording is a directory holding"
    with pytest.raises(RecordingError, match=expected):
        load_recording(path)


def _exchange(number: int, answer: bytes = b'{"choices":[]}') -> ProxiedExchange:
    return ProxiedExchange(
        provider="openai",
        method="POST",
        path="/v1/chat/completions",
        request_body=json.dumps({"messages": [{"role": "user", "content": str(number)}]}).encode(),
        status=200,
        response_headers=(("content-type", "application/json"),),
        response_body=answer,
        complete=True,
    )


def test_a_recording_whose_exchanges_are_missing_or_cut_short_is_refused(tmp_path: Path) -> None:
    recorder = start_recorder(tmp_path / "r", secrets=[])
    for number in range(3):
        recorder.exchange(_exchange(number))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    assert recorder.manifest.lines == {"model.jsonl": 3, "github.jsonl": 0}
    assert len(load_recording(tmp_path / "r").exchanges) == 3
    model = tmp_path / "r" / "model.jsonl"

    model.write_text("".join(model.read_text().splitlines(keepends=True)[:2]))
    with pytest.raises(RecordingError) as cut:
        load_recording(tmp_path / "r")
    model.unlink()
    with pytest.raises(RecordingError) as missing:
        load_recording(tmp_path / "r")

    counted = "where recording.json counts 3: the recording is incomplete"
    assert cut.value.message == f"{model} holds 2 entries, {counted} (copy it whole again)"
    assert missing.value.message == f"{model} is missing, {counted} (copy it whole again)"


def test_a_broken_exchange_line_is_named(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r")
    (directory / "model.jsonl").write_text("{not json\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=r"model\.jsonl line 1 is not JSON"):
        load_recording(directory)


def test_a_line_that_is_no_exchange_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    directory = _manifest(tmp_path / "r")
    (directory / "github.jsonl").write_text('{"index": 1}\n[1, 2]\n', encoding="utf-8")
    with pytest.raises(RecordingError, match=r"github\.jsonl line 1 is malformed: operation"):
        load_recording(directory)
    (directory / "github.jsonl").unlink()
    (directory / "model.jsonl").write_text("[1, 2]\n", encoding="utf-8")
    with pytest.raises(RecordingError, match=r"model\.jsonl line 1 is malformed: .*dictionary"):
        load_recording(directory)


@pytest.mark.parametrize("damage", ["bytes", "directory"])
def test_an_unreadable_exchange_file_is_one_clear_error(tmp_path: Path, damage: str) -> None:
    directory = _manifest(tmp_path / "r")
    if damage == "bytes":
        (directory / "model.jsonl").write_bytes(b"\xff\xfe garbage\n")
    else:
        (directory / "model.jsonl").mkdir()
    with pytest.raises(RecordingError, match=r"model\.jsonl cannot be read"):
        load_recording(directory)


MCP_SECRETS = (
    "# the docs server\nDOCS_API_KEY = docs-Secret-1\n\n  SEARCH_TOKEN=tok=2  \nbare-0001\n"
    "UNSET_KEY= \n"
)
NAMELESS = {
    "base64 with padding": "Zm9vYmFyYmF6cXV4==",
    "base64 with one =": "Zm9vYmFyYmF6cXV=",
    "base32": "JBSWY3DPEHPK3PXP==",
    "a key's last line": "q83vEjRWeJASNFZ4kBI0VnhAbC==",
    "a lower-case name": "docs_key=docs-Secret-2",
}


def test_the_mcp_servers_secrets_keep_their_names_and_lose_their_values() -> None:
    kept = recording_environment(
        {"INPUT_MCP_SECRETS": MCP_SECRETS, "INPUT_GITHUB_TOKEN": "ghs_x", "INPUT_MODEL": "m"}
    )

    assert kept == {
        "INPUT_GITHUB_TOKEN": "***",
        "INPUT_MCP_SECRETS": "DOCS_API_KEY=***\nSEARCH_TOKEN=***\n***\n***",
        "INPUT_MODEL": "m",
    }


@pytest.mark.parametrize("line", NAMELESS.values(), ids=NAMELESS.keys())
def test_a_line_that_names_no_variable_keeps_nothing_of_itself(line: str) -> None:
    """What comes before a pasted value's `=` is part of the secret, not a name."""
    kept = recording_environment({"INPUT_MCP_SECRETS": f"DOCS_API_KEY=v1\n{line}\n"})

    assert kept == {"INPUT_MCP_SECRETS": "DOCS_API_KEY=***\n***"}


def test_only_the_mcp_servers_secrets_keep_names() -> None:
    kept = recording_environment({"AMELIA_DB_SECRETS": "PASSWORD=hunter2-0001"})

    assert kept == {"AMELIA_DB_SECRETS": "***"}


def test_a_replay_gives_each_masked_secret_the_placeholder_and_keeps_the_names() -> None:
    recorded = recording_environment({"INPUT_MCP_SECRETS": MCP_SECRETS, "INPUT_API_KEY": "k"})
    replayed = {name: unmasked_secret(name, value, "stand-in") for name, value in recorded.items()}

    assert replayed == {
        "INPUT_API_KEY": "stand-in",
        "INPUT_MCP_SECRETS": "DOCS_API_KEY=stand-in\nSEARCH_TOKEN=stand-in\nstand-in\nstand-in",
    }
    named = [line for line in replayed["INPUT_MCP_SECRETS"].splitlines() if "=" in line]
    assert parse_mcp_secrets("\n".join(named)) == {
        "DOCS_API_KEY": "stand-in",
        "SEARCH_TOKEN": "stand-in",
    }


@pytest.mark.parametrize("value", ["", "a=***", "***x"])
def test_a_value_that_is_no_masked_secret_is_replayed_as_it_was(value: str) -> None:
    assert unmasked_secret("INPUT_PROMPT", value, "stand-in") == value
    assert masked_secret("INPUT_MCP_SECRETS", "") == ""


def test_an_entry_holding_a_line_separator_is_read_as_one_entry(tmp_path: Path) -> None:
    """pydantic writes U+2028 and U+0085 as they are; a line of the file ends at "\\n" only."""
    recorder = start_recorder(tmp_path / "r", secrets=[])
    recorder.exchange(_exchange(0, '{"a": "x\u2028y\u0085z"}'.encode()))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})

    (exchange,) = load_recording(tmp_path / "r").exchanges

    assert "x\u2028y\u0085z" in exchange.response
