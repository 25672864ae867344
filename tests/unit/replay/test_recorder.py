"""The recorder writes every model exchange the proxy hands it, cleaned, in order, off the
proxy's thread: a conversation resent whole with each request is masked as each request
would be on its own, a secret split across its history included."""

from __future__ import annotations

import base64
import json
import os
import threading
from pathlib import Path
from typing import Any

import pytest
from loguru import logger

from amelia.errors import GitError
from amelia.git import Git, run_git
from amelia.isolation.proxy import ProxiedExchange
from amelia.redaction import Redactor
from amelia.replay.format import CHECKOUT_PACK, GITHUB_FILE, MODEL_FILE, GitHubCall
from amelia.replay.recorder import Cleaner, Recorder
from amelia.testing.replay import start_recorder
from tests.git_helpers import git, init_repo

RUN_SECRET = "run" + "Secret4kX8sH1cR5nBqZ"
KEY_HEAD = "MIIEowIBAAKCAQEAsplitKeyFirstHalf"
KEY_TAIL = "sPlItKeySecondHalfAoGBAMw"


def _recorder(directory: Path, redactor: Redactor | None = None) -> Recorder:
    return start_recorder(directory, secrets=[RUN_SECRET], redactor=redactor)


def _exchange(request: str, answer: str = '{"choices":[]}') -> ProxiedExchange:
    return ProxiedExchange(
        provider="openai",
        method="POST",
        path="/v1/chat/completions",
        request_body=request.encode(),
        status=200,
        response_headers=(("content-type", "application/json"),),
        response_body=answer.encode(),
        complete=True,
    )


def _conversation() -> list[str]:
    """Chat requests as a client sends them, each with the whole conversation so far: tool
    results hold the run's secret, its base64 copy, and a private key whose first half and
    second half come back in two different turns."""
    results = [
        f"token {RUN_SECRET}",
        "-----BEGIN RSA PRIVATE KEY-----\n" + KEY_HEAD,
        "plain output",
        KEY_TAIL + "\n-----END RSA PRIVATE KEY-----",
        base64.b64encode(RUN_SECRET.encode()).decode(),
        "done",
    ]
    messages: list[dict[str, object]] = [{"role": "user", "content": "Read the notes."}]
    requests = []
    for number, result in enumerate(results):
        function = {"name": "read_file", "arguments": json.dumps({"n": number})}
        call = {"id": f"call_{number}", "type": "function", "function": function}
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{number}", "content": result})
        body = {"model": "m", "messages": messages, "tools": [{"type": "function"}]}
        requests.append(json.dumps(body, separators=(",", ":")))
    return requests


def _lines(directory: Path, name: str = MODEL_FILE) -> list[dict[str, object]]:
    return [json.loads(line) for line in (directory / name).read_text().splitlines()]


def test_each_request_of_a_conversation_is_masked_as_on_its_own(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path / "rec")
    requests = _conversation()
    for request in requests:
        recorder.exchange(_exchange(request))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})

    written = (tmp_path / "rec" / MODEL_FILE).read_text()
    forbidden = [RUN_SECRET, base64.b64encode(RUN_SECRET.encode()).decode(), KEY_HEAD, KEY_TAIL]
    for secret in forbidden:
        assert secret not in written
    exchanges = _lines(tmp_path / "rec")
    assert [e["index"] for e in exchanges] == list(range(1, len(requests) + 1))
    # Cleaned with nothing remembered: the same text, request by request.
    alone = Cleaner(Redactor(secrets=[RUN_SECRET]), [RUN_SECRET])
    assert [e["request"] for e in exchanges] == [alone.clean(r) for r in requests]


def test_cleaning_and_writing_happen_off_the_proxys_thread(tmp_path: Path) -> None:
    threads: set[str] = set()

    class Watched(Redactor):
        def redact(self, text: str, **options: object) -> str:
            threads.add(threading.current_thread().name)
            return super().redact(text, **options)  # type: ignore[arg-type]

    recorder = _recorder(tmp_path / "rec", Watched(secrets=[RUN_SECRET]))
    for request in _conversation():
        recorder.exchange(_exchange(request))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    assert threads and threading.current_thread().name not in threads
    assert recorder.cpu_time > 0


def test_a_sessions_exchanges_are_made_once_the_run_calls_github_again(tmp_path: Path) -> None:
    made: list[str] = []
    first = threading.Event()

    class Watched(Redactor):
        def redact(self, text: str, **options: object) -> str:
            made.append(text)
            return super().redact(text, **options)  # type: ignore[arg-type]

    recorder = _recorder(tmp_path / "rec", Watched(secrets=[RUN_SECRET]))

    def probe() -> str:
        first.set()
        return ""

    recorder._appender.append("probe", probe)
    requests = _conversation()
    for request in requests:
        recorder.exchange(_exchange(request))
    assert first.wait(60)  # the appender's thread ran, and it is idle: the exchanges wait
    assert not any(request in made for request in requests)
    assert not (tmp_path / "rec" / MODEL_FILE).exists()

    recorder._github_call(GitHubCall(index=1, operation="edit_comment", kind="write"))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    assert [e["index"] for e in _lines(tmp_path / "rec")] == list(range(1, len(requests) + 1))
    assert made.index(requests[-1]) < next(i for i, t in enumerate(made) if "edit_comment" in t)


def test_a_failing_entry_is_a_warning_and_the_next_ones_are_written(tmp_path: Path) -> None:
    class Failing(Redactor):
        def redact(self, text: str, **options: object) -> str:
            if "poison" in text:
                raise ValueError("cannot clean this")
            return super().redact(text, **options)  # type: ignore[arg-type]

    warnings: list[str] = []
    sink = logger.add(lambda message: warnings.append(str(message)), level="WARNING")
    try:
        recorder = _recorder(tmp_path / "rec", Failing(secrets=[RUN_SECRET]))
        recorder.exchange(_exchange('{"messages":[]}'))
        recorder.exchange(_exchange('{"messages":["poison"]}'))
        recorder.exchange(_exchange('{"messages":[1]}'))
        recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    finally:
        logger.remove(sink)
    written = [e["request"] for e in _lines(tmp_path / "rec")]
    assert written == ['{"messages":[]}', '{"messages":[1]}']
    assert any("cannot clean this" in warning for warning in warnings)


def test_github_calls_keep_their_order_and_what_they_were_when_made(tmp_path: Path) -> None:
    recorder = _recorder(tmp_path / "rec")
    arguments: dict[str, object] = {"body": f"first {RUN_SECRET}"}
    record = recorder._github_call
    record(GitHubCall(index=1, operation="create_comment", kind="write", arguments=arguments))
    arguments["body"] = "changed later"
    for index in range(2, 50):
        record(GitHubCall(index=index, operation="get_issue", kind="read"))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    calls = _lines(tmp_path / "rec", GITHUB_FILE)
    assert [c["index"] for c in calls] == list(range(1, 50))
    assert calls[0]["arguments"] == {"body": "first ***"}


@pytest.mark.parametrize("later", [1, 3])
def test_an_exchange_after_finish_is_still_written(tmp_path: Path, later: int) -> None:
    recorder = _recorder(tmp_path / "rec")
    recorder.exchange(_exchange('{"messages":[]}'))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    for _ in range(later):
        recorder.exchange(_exchange('{"messages":[]}'))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})
    assert [e["index"] for e in _lines(tmp_path / "rec")] == list(range(1, later + 2))


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give the checkout to another uid")
def test_a_checkout_another_uid_owns_is_recorded_through_amelias_isolated_git(
    tmp_path: Path,
) -> None:
    """On a runner another uid owns the checkout (the runner's, the agent user's while
    agents run), and amelia's git reads only a config of its own, which trusts the checkout
    from its preparation to its restoration: the recording reads it before the one and
    after the other, and trusts it itself."""
    origin = init_repo(tmp_path / "origin", {"README.md": "hello\n"})
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "-q", str(origin), str(checkout))
    head = git(checkout, "rev-parse", "HEAD").strip()
    for path in [checkout, *checkout.rglob("*")]:
        os.lchown(path, 1001, 1001)
    own_config = tmp_path / "amelia.gitconfig"
    own_config.touch()
    amelias_git = Git(checkout).isolated(own_config)
    with pytest.raises(GitError, match="dubious ownership"):
        run_git(["rev-parse", "HEAD"], amelias_git)

    recorder = _recorder(tmp_path / "rec")
    recorder.checkout_started(amelias_git)
    recorder.finish(amelias_git, exit_code=0, conclusion="success", outputs={})

    start = recorder.manifest.checkout
    assert start is not None
    assert (start.head, start.branch, start.origin) == (head, "main", {"main": head})
    assert (tmp_path / "rec" / CHECKOUT_PACK).stat().st_size > 0
    assert own_config.read_text() == ""  # trusted for its reads only, in no file


def _streamed(*fragments: str) -> str:
    """An Anthropic stream whose one tool call's input arrives in `fragments`."""
    events: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "m", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use"}},
        *(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": fragment},
            }
            for fragment in fragments
        ),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)


@pytest.mark.parametrize(
    "spelling",
    [RUN_SECRET, base64.b64encode(RUN_SECRET.encode()).decode(), RUN_SECRET.encode().hex()],
    ids=["as-is", "base64", "hex"],
)
def test_a_secret_the_model_streams_in_pieces_is_masked_whole(
    tmp_path: Path, spelling: str
) -> None:
    middle = len(spelling) // 2
    answer = _streamed('{"command": "echo ' + spelling[:middle], spelling[middle:] + '"}')
    recorder = _recorder(tmp_path / "rec")
    recorder.exchange(_exchange('{"model":"m","messages":[]}', answer))
    recorder.finish(None, exit_code=0, conclusion="success", outputs={})

    (line,) = _lines(tmp_path / "rec")
    response = str(line["response"])
    fragments = [
        json.loads(data[len("data: ") :])["delta"]["partial_json"]
        for data in response.splitlines()
        if data.startswith("data: ") and "input_json_delta" in data
    ]
    assert spelling not in "".join(fragments)
    assert "".join(fragments).startswith('{"command": "echo ***')
