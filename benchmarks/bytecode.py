"""Child processes with a bytecode cache, as installed amelia runs (the Action's image
compiles it with UV_COMPILE_BYTECODE=1; a local install writes it on first import).

With PYTHONDONTWRITEBYTECODE=1 in the environment every start compiles every module again:
measured here, that alone adds ~0.3 s to `amelia --help` and ~65 MB to the API driver's
peak RSS (pydantic-ai imports genai_prices/data.py, 1.6 MB of source). The cache lives under
benchmarks/results/ (git-ignored) via PYTHONPYCACHEPREFIX, so the venv is left untouched.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CACHE_DIR = Path(__file__).resolve().parent / "results" / "pycache"
EMPTY_CACHE_DIR = CACHE_DIR.parent / "no-pycache"
"""A bytecode cache that stays empty (nothing is written with PYTHONDONTWRITEBYTECODE)."""

WARM_MODULES = (
    "amelia.cli",
    "amelia.commands.local",
    "amelia.pipeline",
    "amelia.demo",
    "amelia.drivers.api.driver",
    "amelia.drivers.cli.claude",
    "amelia.github.client",
    "benchmarks.probe",
    "benchmarks.sessions",
    "genai_prices.data",
    "pydantic_ai.models.openai",
)
"""Modules the measured processes import, compiled once before anything is timed."""


def cached_env(cache_dir: Path = CACHE_DIR) -> dict[str, str]:
    """os.environ with bytecode written to and read from `cache_dir`."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache_dir)
    return env


def uncached_env() -> dict[str, str]:
    """os.environ where every start compiles its modules again: bytecode is neither written
    nor read, not even from `__pycache__` directories an earlier run left in the venv."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPYCACHEPREFIX"] = str(EMPTY_CACHE_DIR)
    return env


def warm_cache(cache_dir: Path = CACHE_DIR) -> None:
    """Import WARM_MODULES once in a child so the cache holds their bytecode."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", "; ".join(f"import {name}" for name in WARM_MODULES)],
        env=cached_env(cache_dir),
        cwd=Path(__file__).resolve().parent.parent,
        check=True,
        capture_output=True,
    )
