"""`amelia --help` and `amelia action` must start fast: what each may import, and what the
help shows."""

import os
import subprocess
import sys

COMMANDS = {
    "version": "Print amelia's version.",
    "plan": "Write an implementation plan for an issue.",
    "implement": "Implement a plan with the developer agent.",
    "review": "Review the changes since --base.",
    "demo": "Run the whole pipeline offline on a sample repository.",
    "action": "Handle the event of a GitHub Actions run.",
    "run": "Reproduce an Action run locally from a saved event payload.",
    "replay": "Re-run a recorded run offline and say what differs.",
}


def _imported(stderr: str) -> set[str]:
    """Module names from `python -X importtime` output."""
    return {
        line.rsplit("|", 1)[1].strip()
        for line in stderr.splitlines()
        if line.startswith("import time:") and "|" in line
    }


def test_cli_import_does_not_load_model_sdks() -> None:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import amelia.cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = completed.stderr
    assert "amelia.cli" in imported
    assert "claude_agent_sdk" not in imported
    assert "pydantic_ai" not in imported


def test_help_runs() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "--help"], capture_output=True, text=True, check=True
    )
    assert "Usage" in completed.stdout


def test_help_is_plain_text_with_every_command_summarised_whole() -> None:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "amelia.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "80"},
    )
    imported = _imported(completed.stderr)
    assert not {name for name in imported if name.split(".")[0] in ("rich", "pydantic")}
    listed = completed.stdout.split("Commands:\n", 1)[1].splitlines()
    assert [line.split(None, 1) for line in listed] == [[n, s] for n, s in COMMANDS.items()]


def test_boolean_flags_read_as_flags() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "amelia.cli", "run", "--help"],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert "\n  --dry-run  " in completed.stdout
    assert "<bool>" not in completed.stdout


def test_action_starts_the_engine_without_building_the_typer_app() -> None:
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("GITHUB_", "INPUT_", "AMELIA_"))
    }
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "amelia.cli", "action"],
        capture_output=True,
        text=True,
        env=environment,
        check=False,
    )
    assert completed.returncode == 2
    assert "::error::no event name: GITHUB_EVENT_NAME is not set" in completed.stdout
    assert "amelia.action.engine._engine" in _imported(completed.stderr)
    assert not {name for name in _imported(completed.stderr) if name.startswith("typer")}


def test_an_amelia_process_collects_its_youngest_objects_every_10000_allocations() -> None:
    # amelia's imports are ~200,000 objects that live as long as the process: at Python's
    # default of 700, importing both drivers made ~440 collections, 3 of them full.
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('threshold', *gc.get_threshold()))\n"
        "sys.argv = ['amelia', 'version']\n"
        "from amelia.cli import main\n"
        "main()\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert completed.stdout.splitlines()[-1] == "threshold 10000 10 10"
