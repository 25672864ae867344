"""SafeShellExecutor: runs an agent's shell command under the shell policy.

Commands run in their own process group with a secret-free environment, a capped
timeout and capped output; on timeout the whole group is killed. With an agent user they
run as that user (`amelia.isolation.agent_user`), with its HOME.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from amelia.drivers.api.shell_policy import MAX_TIMEOUT_SECONDS, check_command
from amelia.errors import CommandRefused
from amelia.isolation.agent_user import AgentUser
from amelia.isolation.stopped import describe_death
from amelia.redaction import scrubbed_environment

__all__ = ["MAX_OUTPUT_CHARS", "SafeShellExecutor", "ShellResult", "truncation_marker"]


MAX_OUTPUT_CHARS = 30_000
"""Per stream; more would flood the model's context."""

_READ_CHUNK = 65_536
_DRAIN_SECONDS = 5.0
_PAGER_ENV = {"GIT_PAGER": "cat", "PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}


class ShellResult(BaseModel):
    """What a command did."""

    model_config = ConfigDict(frozen=True)

    command: str
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool = False
    timeout_seconds: float
    killed: str | None = None
    """How a command killed by a signal died: which signal and, when amelia sent it, why."""

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    def describe(self) -> str:
        """The text the model sees: output on success, exit code and stderr on failure."""
        if self.ok:
            return self.stdout if not self.stderr else f"{self.stdout}\n[stderr]\n{self.stderr}"
        if self.timed_out:
            head = f"Command timed out after {self.timeout_seconds:g} s and was killed."
        elif self.killed is not None:
            head = f"Command was {self.killed}."
        else:
            head = f"Command failed with exit code {self.exit_code}."
        parts = [head]
        if self.stderr:
            parts.append(f"[stderr]\n{self.stderr}")
        if self.stdout:
            parts.append(f"[stdout]\n{self.stdout}")
        return "\n".join(parts)


def truncation_marker(omitted: int) -> str:
    return f"\n… [output truncated: {omitted} more characters not shown]"


async def _read_capped(stream: asyncio.StreamReader | None, limit: int) -> str:
    """Read a stream to its end, keeping at most `limit` characters."""
    if stream is None:
        return ""
    kept = bytearray()
    omitted = 0
    while chunk := await stream.read(_READ_CHUNK):
        room = limit - len(kept)
        if room > 0:
            kept.extend(chunk[:room])
        omitted += max(0, len(chunk) - max(room, 0))
    text = kept.decode("utf-8", errors="replace")
    return text + truncation_marker(omitted) if omitted else text


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


class SafeShellExecutor:
    """Runs commands in `cwd` after checking them against the shell policy."""

    def __init__(
        self,
        cwd: str | os.PathLike[str],
        *,
        max_output_chars: int = MAX_OUTPUT_CHARS,
        inherited: Mapping[str, str] | None = None,
        agent: AgentUser | None = None,
    ) -> None:
        """`inherited` is the environment commands start from, minus its secrets; `agent`
        the user they run as (None: amelia's own)."""
        self.agent = agent
        self.cwd = os.fspath(cwd)
        self.max_output_chars = max_output_chars
        self.inherited: Mapping[str, str] = dict(inherited or {})
        self._environment = {**scrubbed_environment(self.inherited), **_PAGER_ENV}
        """Scrubbed once: a session runs hundreds of commands from the same environment."""

    def environment(self) -> dict[str, str]:
        """No secrets at all reach a command the model chose, not even the model's key."""
        environment = dict(self._environment)
        return environment if self.agent is None else self.agent.environment(environment)

    async def execute(self, command: str, *, timeout_seconds: float = 30) -> ShellResult:
        """Run `command` through /bin/sh; raises CommandRefused when the policy says no."""
        check_command(command)
        return await self._run(command, None, timeout_seconds)

    async def execute_argv(
        self, argv: Sequence[str], *, timeout_seconds: float = 30
    ) -> ShellResult:
        """Run `argv` directly, with no shell in between (for already-vetted commands)."""
        if not argv:
            raise CommandRefused("the command is empty")
        return await self._run(" ".join(argv), list(argv), timeout_seconds)

    async def _run(
        self, command: str, argv: list[str] | None, timeout_seconds: float
    ) -> ShellResult:
        if timeout_seconds <= 0:
            raise CommandRefused("the timeout must be positive")
        capped = min(float(timeout_seconds), float(MAX_TIMEOUT_SECONDS))
        common = {
            "cwd": self.cwd,
            "env": self.environment(),
            "stdin": asyncio.subprocess.DEVNULL,
            "stdout": asyncio.subprocess.PIPE,
            "stderr": asyncio.subprocess.PIPE,
            "start_new_session": True,
        }
        if argv is None and self.agent is None:
            process = await asyncio.create_subprocess_shell(command, **common)  # type: ignore[arg-type]
        else:
            program = ["/bin/sh", "-c", command] if argv is None else argv
            if self.agent is not None:
                program = self.agent.command(program)
            process = await asyncio.create_subprocess_exec(*program, **common)  # type: ignore[arg-type]
        readers = asyncio.gather(
            _read_capped(process.stdout, self.max_output_chars),
            _read_capped(process.stderr, self.max_output_chars),
        )
        timed_out = False
        try:
            stdout, stderr = await asyncio.wait_for(asyncio.shield(readers), capped)
            exit_code: int | None = await process.wait()
        except TimeoutError:
            timed_out = True
            _kill_group(process)
            # Grandchildren holding the pipes die with the group, so the readers finish;
            # one that left the group could hold them open, hence the bound.
            try:
                stdout, stderr = await asyncio.wait_for(readers, _DRAIN_SECONDS)
            except TimeoutError:
                stdout, stderr = "", ""
            exit_code = await process.wait()
        except asyncio.CancelledError:
            _kill_group(process)
            raise
        killed = None
        if exit_code is not None and not timed_out:
            killed = describe_death(exit_code, pid=process.pid)
        return ShellResult(
            command=command,
            exit_code=exit_code,
            stdout=stdout,
            stderr=stderr,
            timed_out=timed_out,
            timeout_seconds=capped,
            killed=killed,
        )
