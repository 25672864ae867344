"""The `amelia` command line. Commands import their heavy dependencies lazily."""

from __future__ import annotations

import typer

from amelia import __version__

app = typer.Typer(
    name="amelia",
    help="Turn an issue into a reviewed change: plan, implement, review.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """Turn an issue into a reviewed change: plan, implement, review."""


@app.command()
def version() -> None:
    """Print amelia's version."""
    typer.echo(__version__)


from amelia.commands import local as _local_commands  # noqa: E402

_local_commands.register(app)

from amelia.commands import action as _action_commands  # noqa: E402

_action_commands.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
