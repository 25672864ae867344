"""The `amelia` command line.

Commands that run agents (`action`, `run`, `plan`, `implement`, `review`) first restart
the process without credentials in its environment, handing them over through a pipe
(`amelia.isolation.handoff`), so no `/proc/<pid>/environ` of amelia shows one to an
agent's tool. `amelia action` with no arguments, what the Action's container runs on every
event, then starts the engine at once: it skips importing typer and building every
command's options, which cost ~40 ms of CPU before the first GitHub request. Everything
else goes through the typer app, whose help is plain text. Commands import their heavy
dependencies lazily.
"""

from __future__ import annotations

import gc
import sys
from functools import cache
from typing import TYPE_CHECKING

from amelia import __version__

if TYPE_CHECKING:
    import typer

__all__ = ["build_app", "main"]

HELP = "Turn an issue into a reviewed change: plan, implement, review."
AGENT_COMMANDS = frozenset({"action", "run", "plan", "implement", "review"})
"""The commands that run agents: no credential may stay in their process's environment."""
YOUNG_COLLECTION_THRESHOLD = 10_000
"""Allocations between two collections of the youngest generation in an `amelia` process."""


@cache
def build_app() -> typer.Typer:
    """The `amelia` typer app with every command registered."""
    import typer

    from amelia.commands import action, local, replay

    app = typer.Typer(
        name="amelia",
        help=HELP,
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        # Plain help: rendering it through rich (typer's default when rich is installed)
        # imports rich.markdown and doubles the time of `amelia --help`.
        rich_markup_mode=None,
    )

    def print_version(asked: bool) -> None:
        if asked:
            typer.echo(__version__)
            raise typer.Exit()

    @app.callback()
    def _root(
        version: bool = typer.Option(
            False,
            "--version",
            help="Print amelia's version and exit.",
            is_eager=True,
            callback=print_version,
        ),
    ) -> None:
        """Turn an issue into a reviewed change: plan, implement, review."""

    @app.command()
    def version() -> None:
        """Print amelia's version."""
        typer.echo(__version__)

    local.register(app)
    action.register(app)
    replay.register(app)
    return app


def __getattr__(name: str) -> typer.Typer:
    """`amelia.cli.app`: the typer app, built on first use."""
    if name == "app":
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _isolate(command: str) -> None:
    """Restart without credentials in the environment (`amelia.isolation.handoff`), or
    stop with one line and exit 1 when that fails."""
    from amelia.errors import exit_code_for
    from amelia.isolation.handoff import IsolationError, isolate_secrets

    try:
        isolate_secrets()
    except IsolationError as error:
        if command == "action":
            from amelia.action.workflow_io import WorkflowIO

            WorkflowIO().error(f"amelia: {error.message}")
        else:
            print(f"error: {error.message}", file=sys.stderr)
        sys.exit(exit_code_for(error))


def main() -> None:
    """The console script. Commands that run agents first restart amelia without
    credentials in its environment, before anything else is loaded."""
    # What amelia imports (PyGithub, the SDKs' pydantic models) is ~200,000 objects that
    # live as long as the process: at the collector's default threshold of 700 allocations,
    # importing both drivers made ~440 collections, 3 of them full, ~0.25 s of ~1.7 s CPU.
    gc.set_threshold(YOUNG_COLLECTION_THRESHOLD)
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command in AGENT_COMMANDS:
        _isolate(command)
    if sys.argv[1:] == ["action"]:
        from amelia.action.engine import run_action

        try:
            code = run_action()
        except KeyboardInterrupt:  # before the runner's own signal handling is in place
            print("Aborted!", file=sys.stderr)
            code = 1
        sys.exit(code)
    build_app()()


if __name__ == "__main__":
    main()
