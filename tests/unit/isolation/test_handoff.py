"""`isolate_secrets()` in a real subprocess: restart in place, handover, failing closed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from amelia.isolation.handoff import HANDOFF_FD_VARIABLE

PROGRAM = """
import hashlib, json, os, sys
from amelia.isolation.handoff import (
    HANDOFF_FD_VARIABLE, IsolationError, handed_over_secrets, isolate_secrets,
    runner_environment,
)
from amelia.isolation.inspection import inspection_forbidden

print(json.dumps({"start": os.getpid()}), flush=True)
marker = os.environ.get(HANDOFF_FD_VARIABLE)
try:
    isolate_secrets()
except IsolationError as error:
    print(error.message, file=sys.stderr)
    sys.exit(1)
try:
    os.fstat(int(marker or "-1"))
    handoff_fd = "open"
except OSError:
    handoff_fd = "closed"
print(json.dumps({
    "handed_over": {
        name: hashlib.sha256(os.fsencode(value)).hexdigest()
        for name, value in handed_over_secrets().items()
    },
    "secret_names_in_environ": sorted(
        name for name in os.environ if name in handed_over_secrets()
    ),
    "marker_in_environ": HANDOFF_FD_VARIABLE in os.environ,
    "handoff_fd": handoff_fd,
    "runner_environment": sorted(runner_environment()),
    "inspection_forbidden": inspection_forbidden(),
}))
"""


def digest(value: bytes) -> str:
    return hashlib.sha256(value).hexdigest()


def run(
    environment: dict[bytes, bytes], pass_fds: Sequence[int] = ()
) -> subprocess.CompletedProcess[str]:
    base = {b"PATH": os.environb.get(b"PATH", b"/usr/bin:/bin"), b"LANG": b"C.UTF-8"}
    return subprocess.run(
        [sys.executable, "-c", PROGRAM],
        env={**base, **environment},
        pass_fds=pass_fds,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def lines(done: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_credentials_are_handed_over_and_the_environment_is_clean() -> None:
    not_utf8 = b"ghs_\xff\xfe-not-utf-8-token"
    done = run(
        {
            b"GITHUB_TOKEN": not_utf8,
            b"INPUT_ANTHROPIC_API_KEY": b"sk-ant-api03-planted",
            b"INPUT_PLAN_DIR": b"docs/plans",
            b"OPENAI_API_KEY": b"",
        }
    )

    assert done.returncode == 0, done.stderr
    first, second, result = lines(done)
    assert first == second  # one restart, in place (same pid), then no more
    assert result == {
        "handed_over": {
            "GITHUB_TOKEN": digest(not_utf8),
            "INPUT_ANTHROPIC_API_KEY": digest(b"sk-ant-api03-planted"),
        },
        "secret_names_in_environ": [],
        "marker_in_environ": False,
        "handoff_fd": "closed",
        "runner_environment": [
            "GITHUB_TOKEN",
            "INPUT_ANTHROPIC_API_KEY",
            "INPUT_PLAN_DIR",
            "LANG",
            "OPENAI_API_KEY",
            "PATH",
        ],
        "inspection_forbidden": True,
    }


def test_without_credentials_nothing_restarts() -> None:
    done = run({b"INPUT_TRIGGER_PHRASE": b"/amelia", b"GITHUB_TOKEN": b""})

    assert done.returncode == 0, done.stderr
    start, result = lines(done)  # started once: no restart
    assert set(start) == {"start"}
    assert result["handed_over"] == {}
    assert result["inspection_forbidden"] is True


def _pipe_holding(data: bytes) -> int:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    return read_end


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("not-a-number", f"{HANDOFF_FD_VARIABLE} does not name a file descriptor"),
        ("standard-stream", f"{HANDOFF_FD_VARIABLE} names a standard stream, not a pipe"),
        ("closed-descriptor", "Cannot read the credentials handed over at start: Bad file"),
        ("regular-file", f"{HANDOFF_FD_VARIABLE} does not name a pipe"),
        ("foreign-pipe", "The credentials handed over at start are not amelia's"),
        ("malformed-handoff", "The credentials handed over at start are malformed"),
        ("non-secret-handed-over", "The credentials handed over at start are malformed"),
        ("credential-left-in-environment", "still in the environment after the restart: GH_TOKEN"),
        (
            "too-large-for-a-pipe",
            "Cannot hand the credentials over to a clean process: they do not fit into a pipe",
        ),
    ],
)
def test_every_failure_stops_with_a_clear_message(tmp_path: Path, case: str, message: str) -> None:
    environment: dict[bytes, bytes] = {}
    pass_fds: list[int] = []
    marker = b""
    if case == "not-a-number":
        marker = b"three"
    elif case == "standard-stream":
        marker = b"1"
    elif case == "closed-descriptor":
        marker = b"987"
    elif case == "regular-file":
        handle = (tmp_path / "file").open("w")
        pass_fds.append(handle.fileno())
        marker = str(handle.fileno()).encode()
    elif case == "too-large-for-a-pipe":
        environment = {f"BIG_{n}_TOKEN".encode(): b"x" * 120_000 for n in range(12)}
    else:
        payloads = {
            "foreign-pipe": b'{"GITHUB_TOKEN": "x"}',
            "malformed-handoff": b"amelia-secrets/1\n{not json",
            "non-secret-handed-over": b'amelia-secrets/1\n{"PATH": "/evil"}',
            "credential-left-in-environment": b'amelia-secrets/1\n{"GITHUB_TOKEN": "x"}',
        }
        pass_fds.append(_pipe_holding(payloads[case]))
        marker = str(pass_fds[0]).encode()
        if case == "credential-left-in-environment":
            environment[b"GH_TOKEN"] = b"gho_still-here"
    if marker:
        environment[HANDOFF_FD_VARIABLE.encode()] = marker

    done = run(environment, pass_fds)
    for descriptor in pass_fds:
        os.close(descriptor)

    assert done.returncode == 1
    assert message in done.stderr
    assert "Traceback" not in done.stderr
    assert '"handed_over"' not in done.stdout
