"""The API driver behind the credential proxy as amelia's commands run it (`model_access`):
it runs in the proxy's own process, so its requests reach the proxy through the proxy's
in-process transport and never its socket, yet they still carry only the token: the
scripted server gets the real key, the recording has every exchange, and a wrong token is
refused as on the socket."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from amelia.drivers.api import ApiDriver
from amelia.drivers.base import AgenticMessageType
from amelia.drivers.runtime import DriverEnvironment
from amelia.isolation.model_access import model_access, model_upstreams
from amelia.isolation.proxy import running_proxy
from amelia.replay.format import MODEL_FILE, load_recording
from amelia.replay.recorder import Recorder
from amelia.testing import ScriptedOpenAIServer
from amelia.testing.openai_server import ScriptItem, text, tool_call
from amelia.testing.replay import start_recorder

pytestmark = pytest.mark.e2e

REAL_KEY = "sk-proj-the-real-openai-key-only-amelia-holds-5d8e2a"


def _recorder(directory: Path) -> Recorder:
    return start_recorder(directory, secrets=[REAL_KEY], repository="octo/example")


def _inherited() -> dict[str, str]:
    """This process's environment without model connection variables of its own."""
    return {name: value for name, value in os.environ.items() if not name.startswith("OPENAI_")}


async def test_an_api_driver_in_the_proxys_process_reaches_it_without_its_socket(
    tmp_path: Path,
) -> None:
    workdir = tmp_path / "checkout"
    workdir.mkdir()
    (workdir / "app.py").write_text("GREETING = 'hello'\n")
    script: list[list[ScriptItem]] = [
        [tool_call("read_file", {"file_path": "app.py"}, "c1")],
        [tool_call("run_shell_command", {"command": "echo checked"}, "c2")],
        [text("The greeting is hello.")],
    ]
    recording = tmp_path / "runs" / "run-1"
    recorder = _recorder(recording)
    with ScriptedOpenAIServer(script=script) as server:
        upstreams = model_upstreams({"OPENAI_API_KEY": REAL_KEY}, {"OPENAI_BASE_URL": server.url})
        async with model_access(upstreams, observer=recorder) as access:
            proxy = running_proxy(access.environment["OPENAI_BASE_URL"])
            assert proxy is not None
            environment = DriverEnvironment(
                inherited=_inherited(), credentials=dict(access.environment)
            )
            driver = ApiDriver(
                model="openai-chat:gpt-test",
                max_turns=5,
                amelia_home=tmp_path / "amelia-home",
                environment=environment,
            )
            messages = [m async for m in driver.execute_agentic("read it", str(workdir))]
            accepted = proxy.socket_connections
        recorder.finish(None, exit_code=0, conclusion="success", outputs={})

    assert messages[-1].type == AgenticMessageType.RESULT and not messages[-1].is_error
    assert messages[-1].content == "The greeting is hello."
    assert accepted == 0
    assert len(server.requests) == 3
    assert {r.headers["authorization"] for r in server.requests} == {f"Bearer {REAL_KEY}"}
    assert access.token is not None
    assert all(access.token not in str(r.headers) for r in server.requests)
    driver_sees = {**environment.inherited, **environment.credentials}
    assert driver_sees["OPENAI_API_KEY"] == access.token
    assert all(REAL_KEY not in value for value in driver_sees.values())
    exchanges = load_recording(recording).exchanges
    assert [(e.provider, e.path) for e in exchanges] == [("openai", "/chat/completions")] * 3
    assert "echo checked" in exchanges[1].response
    assert REAL_KEY not in (recording / MODEL_FILE).read_text(encoding="utf-8")


async def test_an_api_driver_with_a_wrong_token_is_refused_in_process_too(
    tmp_path: Path,
) -> None:
    workdir = tmp_path / "checkout"
    workdir.mkdir()
    with ScriptedOpenAIServer(script=[[text("never asked")]]) as server:
        upstreams = model_upstreams({"OPENAI_API_KEY": REAL_KEY}, {"OPENAI_BASE_URL": server.url})
        async with model_access(upstreams) as access:
            proxy = running_proxy(access.environment["OPENAI_BASE_URL"])
            assert proxy is not None
            guessed = {**access.environment, "OPENAI_API_KEY": "amelia-proxy-guessed"}
            driver = ApiDriver(
                model="openai-chat:gpt-test",
                max_turns=5,
                max_retries=0,
                amelia_home=tmp_path / "amelia-home",
                environment=DriverEnvironment(inherited=_inherited(), credentials=guessed),
            )
            messages = [m async for m in driver.execute_agentic("read it", str(workdir))]
            accepted = proxy.socket_connections

    assert messages[-1].type == AgenticMessageType.RESULT and messages[-1].is_error
    assert messages[-1].content == (
        "Model API error: HTTP 401 from gpt-test: amelia credential proxy: the proxy token "
        "is missing or wrong"
    )
    assert accepted == 0
    assert server.requests == []
