"""`amelia --help` must stay fast: the CLI may not import the model SDKs."""

import subprocess
import sys


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
