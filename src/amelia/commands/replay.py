"""`amelia replay <recording> [--repo DIR]`: re-run a recorded run offline and compare.

Exit codes: 0 the replay reproduced the recorded run (the same commit trees, plan file and
review bodies), 1 it diverged or ended differently (the report says where), 2 the
recording cannot be read (e.g. another format version) or `--repo` is not empty, 130 (143)
Ctrl-C (SIGTERM) stopped it: nothing was compared.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register", "replay"]


def replay(
    recording: Annotated[
        str, typer.Argument(help="The recording: a directory under $AMELIA_HOME/runs/.")
    ],
    *,
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            help="An empty directory to rebuild the checkout in [default: a new temporary one].",
        ),
    ] = None,
) -> None:
    """Re-run a recorded run offline and say what differs.

    Needs no network and no key: the recording answers for the model and GitHub.
    """
    from amelia.errors import AmeliaError, exit_code_for
    from amelia.replay.player import replay as play

    # An empty argument (an unset variable in a script) would be the current directory.
    for name, given in (("the recording", recording), ("--repo", repo)):
        if given is not None and not given.strip():
            typer.echo(f"error: {name} is empty: name a directory", err=True)
            raise typer.Exit(2)
    try:
        result = play(Path(recording), repo=None if repo is None else Path(repo))
    except AmeliaError as error:
        typer.echo(f"error: {error.message}", err=True)
        raise typer.Exit(exit_code_for(error)) from None
    if result.stopped_by is not None:
        raise typer.Exit(128 + signal.Signals[result.stopped_by].value)
    raise typer.Exit(0 if result.same else 1)


def register(app: typer.Typer) -> None:
    """Add `amelia replay` to the `amelia` app."""
    app.command("replay")(replay)
