"""The project's toolchain in an Action run: the setup that runs once before any agent, and
the test command amelia runs after every developer round.

The setup runs as the container's user (root in the image: it is the maintainer's own
script, and installs packages), in the checkout, with the environment the agents' tools
get (no secrets), their `HOME` (the agent user's fresh one, whose contents it then gets:
what the setup installs there is theirs to use) and its own `$GITHUB_PATH` file:
directories it appends there go in front of the agents' and the test command's `PATH`.
The test command runs as the agents' unprivileged user, like their tools. Its output is
one `::group::` of the log and its last lines go to the job summary. A failing or
timed-out setup ends the run before any model is asked anything; the progress comment
shows the exit code and the last lines, redacted.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from loguru import logger

from amelia.action.modes.base import ModeContext, ModeExit, ModeOutcome
from amelia.action.run_settings import Toolchain
from amelia.isolation.ownership import give_home_to
from amelia.pipeline import MakeDriver
from amelia.pipeline.project_tests import TestCommand
from amelia.redaction import Redactor, scrubbed_environment
from amelia.text import code_fence
from amelia.toolchain import (
    ShellRun,
    ToolchainReach,
    blocked_toolchain,
    extend_path,
    read_added_path,
    resolve_setup,
    run_shell,
    without_own_virtualenv,
)

__all__ = [
    "RUNNER_FILE_VARIABLES",
    "PreparedToolchain",
    "prepare_toolchain",
    "render_tail",
    "unreachable_reason",
]

RUNNER_FILE_VARIABLES = ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV", "GITHUB_STATE")
"""The runner's file commands: amelia's own; the setup and the tests never write to them."""


@dataclass(frozen=True, kw_only=True)
class PreparedToolchain:
    """What the project's setup leaves the agents: the drivers they run on (they see what
    the setup installed) and the test command amelia runs after every developer round
    (None: the project has none)."""

    make_driver: MakeDriver
    test_command: TestCommand | None = None


def render_tail(title: str, tail: str, redactor: Redactor) -> str:
    """`tail` as a collapsed block of markdown, redacted."""
    text = redactor.redact(tail.rstrip()) or "(no output)"
    fence = code_fence(text)
    return f"<details>\n<summary>{title}</summary>\n\n{fence}\n{text}\n{fence}\n\n</details>\n"


def _tool_environment(inherited: Mapping[str, str]) -> dict[str, str]:
    """What the setup and the tests start from: the agents' tools' environment."""
    scrubbed = scrubbed_environment(inherited)
    for name in (*RUNNER_FILE_VARIABLES, "GITHUB_PATH"):
        scrubbed.pop(name, None)
    return scrubbed


def unreachable_reason(reach: ToolchainReach, user: str, test_origin: str) -> str:
    """One line: what of the toolchain's `PATH` the agent user `user` cannot reach, what it
    would run instead, and the ways out."""
    parts: list[str] = []
    if reach.added:
        parts.append(f"the PATH entries the setup added ({', '.join(reach.added)})")
    for blocked in reach.programs:
        instead = (
            f"it would run {blocked.instead} instead"
            if blocked.instead is not None
            else "it would find no such program"
        )
        parts.append(f"`{blocked.program}` of {test_origin} ({blocked.found}; {instead})")
    return (
        f"the agent user {user}, who runs the tests and the agents' tools, cannot reach "
        f"{'; '.join(parts)}: a directory above it is closed to other users (such as "
        "/root). Install the toolchain where every user can reach it (/usr/local, /opt), "
        "let other users enter those directories (chmod o+x), or set "
        "AMELIA_AGENT_USER=none to run agents as amelia's own user; no agent ran"
    )


def _describe(ran: ShellRun, timeout_minutes: float) -> str:
    if ran.timed_out:
        return f"timed out after {timeout_minutes:g} min"
    return "passed" if ran.succeeded else f"failed (exit {ran.exit_code})"


async def _run_setup(
    ctx: ModeContext, toolchain: Toolchain, inherited: Mapping[str, str], trusted_ref: str
) -> tuple[ShellRun, str, list[str]]:
    """Run the setup; (how it ended, what it was, the directories it added to PATH)."""
    assert toolchain.setup is not None
    repo = ctx.checkout.path
    command = resolve_setup(toolchain.setup, repo=ctx.checkout.git, trusted_ref=trusted_ref)
    with tempfile.TemporaryDirectory(prefix="amelia-setup-") as scratch:
        path_file = Path(scratch) / "path"
        path_file.touch()
        environment = {**_tool_environment(inherited), "GITHUB_PATH": str(path_file)}
        agent = ctx.environment.agent if ctx.environment is not None else None
        if agent is not None and agent.home is not None:
            # One HOME for the setup, the agents and the test command: what it installs
            # under $HOME (rustup, nvm, uv, pipx, `pip install --user`) is theirs.
            environment["HOME"] = str(agent.home)
            environment.pop("XDG_CONFIG_HOME", None)
        redactor = ctx.redactor
        ctx.io.open_group(f"amelia setup: {redactor.redact(command.description)}")
        try:
            ran = await run_shell(
                command.argv,
                cwd=repo,
                env=environment,
                timeout_seconds=toolchain.setup_timeout_minutes * 60,
                on_line=lambda line: ctx.io.line(redactor.redact(line)),
            )
        except OSError as error:
            ran = ShellRun(exit_code=127, timed_out=False, tail=str(error), duration_seconds=0)
        finally:
            ctx.io.close_group()
            command.cleanup()
            if agent is not None:
                await asyncio.to_thread(give_home_to, agent)
        added = read_added_path(path_file)
    return ran, command.description, added


async def prepare_toolchain(
    ctx: ModeContext, *, trusted_ref: str, setup_stage: str, tests_stage: str
) -> PreparedToolchain:
    """Run the setup (when there is one) and make the drivers see what it installed.

    Returns the drivers to run the agents on (made anew when the setup added to `PATH`)
    and the test command to run after every developer round. A failing setup ends the run
    (`ModeExit` with the failed outcome); a setup script missing from the default branch
    raises `ConfigError`."""
    toolchain = ctx.toolchain
    environment = ctx.environment
    inherited: Mapping[str, str] = environment.inherited if environment is not None else {}
    if toolchain.setup is None and toolchain.test_command is None:
        await ctx.stage(setup_stage, "skipped", detail="none configured")
        await ctx.stage(tests_stage, "skipped", detail="none configured")
        return PreparedToolchain(make_driver=ctx.make_driver)
    # With a toolchain, the project's python3 and pip are the system's (where the setup
    # installs), not the virtual environment amelia's own packages live in.
    inherited = without_own_virtualenv(inherited)
    added: list[str] = []
    if toolchain.setup is None:
        await ctx.stage(setup_stage, "skipped", detail="none configured")
    else:
        await ctx.stage(setup_stage, "running", detail=toolchain.setup)
        ran, description, added = await _run_setup(ctx, toolchain, inherited, trusted_ref)
        outcome = _describe(ran, toolchain.setup_timeout_minutes)
        title = f"Setup `{description}`: {outcome} ({ran.duration_seconds:.1f} s)"
        ctx.io.write_summary(
            "### "
            + ctx.redactor.redact(title)
            + "\n\n"
            + render_tail("Last lines of its output", ran.tail, ctx.redactor)
        )
        if not ran.succeeded:
            await ctx.stage(setup_stage, "failed", detail=outcome)
            raise ModeExit(
                ModeOutcome(
                    conclusion="failure",
                    failure_reason=f"the setup `{description}` {outcome}; no agent ran",
                    failure_details=ran.tail,
                )
            )
        await ctx.stage(setup_stage, "done", detail=f"{outcome} in {ran.duration_seconds:.0f} s")
        inherited = extend_path(inherited, added)
    agent = environment.agent if environment is not None else None
    if agent is not None:
        reach = blocked_toolchain(
            inherited.get("PATH", ""),
            can_reach=agent.can_reach,
            added=added,
            test_command=toolchain.test_command,
        )
        if reach.blocked:
            reason = unreachable_reason(reach, agent.name, toolchain.test_origin)
            await ctx.stage(tests_stage, "failed", detail="the agent user cannot reach it")
            raise ModeExit(ModeOutcome(conclusion="failure", failure_reason=reason))
        if reach.others:
            logger.warning(
                "the agent user {} cannot reach these PATH entries, so the agents' commands "
                "find nothing there: {}",
                agent.name,
                ", ".join(reach.others),
            )
    make_driver = ctx.make_driver
    if environment is not None and inherited != environment.inherited:
        from amelia.pipeline import default_make_driver

        environment = replace(environment, inherited=inherited)
        drivers = ctx.driver_source or default_make_driver
        make_driver = drivers(ctx.profile, environment=environment)
    if toolchain.test_command is None:
        await ctx.stage(tests_stage, "skipped", detail="none configured")
        return PreparedToolchain(make_driver=make_driver)
    test_command = TestCommand(
        command=toolchain.test_command,
        timeout_seconds=toolchain.test_timeout_minutes * 60,
        environment=_tool_environment(inherited),
        origin=toolchain.test_origin,
        agent=None if environment is None else environment.agent,
    )
    return PreparedToolchain(make_driver=make_driver, test_command=test_command)
