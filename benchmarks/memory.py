"""Peak RSS of the amelia process itself, measured in a child process (benchmarks.probe).

The scripted model servers run here, in the parent, and the Claude Code CLI is the probe's
own child, so neither counts towards the probe's `ru_maxrss`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from amelia.demo import demo_script
from amelia.testing import ScriptedAnthropicServer, ScriptedOpenAIServer
from amelia.testing.anthropic_script import RecordedRequest
from amelia.testing.sample_repo import create_sample_repo
from amelia.testing.scripted_claude import scripted_claude_environment
from benchmarks.bytecode import cached_env, warm_cache
from benchmarks.probe import ProbeKind
from benchmarks.report import Figure, Target
from benchmarks.sessions import (
    OPENAI_MODEL,
    SCRIPTED_KEY,
    anthropic_session,
    new_workdir,
    openai_session,
)

RSS_TARGET = Target(limit=150)
PROBE_TIMEOUT_SECONDS = 300


class ProbeFailedError(RuntimeError):
    """The probe process did not finish its workload."""


def _run_probe(kind: ProbeKind, workdir: Path, env: dict[str, str]) -> float:
    """Peak RSS in MB of one probe run."""
    completed = subprocess.run(
        [sys.executable, "-m", "benchmarks.probe", kind, str(workdir)],
        env={**cached_env(), **env},
        capture_output=True,
        text=True,
        timeout=PROBE_TIMEOUT_SECONDS,
        check=False,
        cwd=Path(__file__).resolve().parent.parent,
    )
    lines = completed.stdout.strip().splitlines()
    if completed.returncode != 0 or not lines:
        raise ProbeFailedError(f"probe {kind} exited {completed.returncode}: {completed.stderr}")
    return float(json.loads(lines[-1])["max_rss_kb"]) / 1024


def _claude_env(server: ScriptedAnthropicServer, workdir: Path) -> dict[str, str]:
    return scripted_claude_environment(server.url, workdir / "claude-config")


def cli_session_rss(workdir: Path) -> float:
    session = new_workdir(workdir, "session")
    with ScriptedAnthropicServer(script=anthropic_session(session)) as server:
        return _run_probe("cli-session", workdir, _claude_env(server, workdir))


def api_session_rss(workdir: Path) -> float:
    new_workdir(workdir, "session")
    with ScriptedOpenAIServer(script=openai_session(), model=OPENAI_MODEL) as server:
        env = {"OPENAI_API_KEY": SCRIPTED_KEY, "OPENAI_BASE_URL": server.url}
        return _run_probe("api-session", workdir, env)


def pipeline_run(workdir: Path) -> tuple[float, list[RecordedRequest]]:
    """The demo's plan → implement → review pipeline with Claude Code: RSS and model requests."""
    repo = create_sample_repo(workdir / "greeter")
    with ScriptedAnthropicServer(script=demo_script(repo)) as server:
        rss = _run_probe("pipeline", workdir, _claude_env(server, workdir))
        return rss, server.requests


def measure_memory(root: Path, repetitions: int) -> tuple[list[Figure], list[RecordedRequest]]:
    """Figures for a Claude Code session, an API session and the whole pipeline.

    Also returns the model requests of the last pipeline run (the prompt benchmark reads them).
    """
    runs = max(1, repetitions)
    warm_cache()
    samples: dict[str, list[float]] = {"cli": [], "api": [], "pipeline": []}
    requests: list[RecordedRequest] = []
    for index in range(runs):
        samples["cli"].append(cli_session_rss(root / f"cli-{index}"))
        samples["api"].append(api_session_rss(root / f"api-{index}"))
        rss, requests = pipeline_run(root / f"pipeline-{index}")
        samples["pipeline"].append(rss)
    names = {
        "cli": "ClaudeCliDriver 10-turn session",
        "api": "ApiDriver 10-turn session",
        "pipeline": "plan → implement → review pipeline (Claude Code)",
    }
    figures = [
        Figure.median_of("peak RSS", names[key], values, "MB", RSS_TARGET)
        for key, values in samples.items()
    ]
    return figures, requests
