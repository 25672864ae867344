"""The project's own toolchain: the setup command that prepares the container before any
agent runs, and the shell commands amelia itself runs (setup, the test command), bounded
in time, their output streamed and its tail kept."""

from amelia.toolchain.process import ShellRun, run_shell
from amelia.toolchain.reach import BlockedProgram, ToolchainReach, blocked_toolchain
from amelia.toolchain.setup import (
    SetupCommand,
    extend_path,
    read_added_path,
    resolve_setup,
    without_own_virtualenv,
)

__all__ = [
    "BlockedProgram",
    "SetupCommand",
    "ShellRun",
    "ToolchainReach",
    "blocked_toolchain",
    "extend_path",
    "read_added_path",
    "resolve_setup",
    "run_shell",
    "without_own_virtualenv",
]
