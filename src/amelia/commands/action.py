"""`amelia action` (inside the Action's container) and `amelia run` (the same, by hand).

Only typer is imported here; the engine loads when a command runs. Exit codes: 0 success,
refused, ignored or dry run; 1 the run failed; 2 bad configuration or payload.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["action", "register", "run"]


def action() -> None:
    """Handle the event of a GitHub Actions run.

    The event and the inputs come from the runner's GITHUB_* and INPUT_* variables.
    """
    from amelia.action.engine import run_action

    raise typer.Exit(run_action())


def run(
    event_name: Annotated[
        str, typer.Option("--event-name", help="The event's name, e.g. issue_comment.")
    ],
    event_path: Annotated[
        Path, typer.Option("--event-path", help="The event payload (JSON), as GitHub sends it.")
    ],
    *,
    repo: Annotated[
        str | None,
        typer.Option("--repo", help="The checkout to work in (default: GITHUB_WORKSPACE or .)."),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Post nothing and push nothing; print and save instead."),
    ] = False,
) -> None:
    """Reproduce an Action run locally from a saved event payload."""
    if repo is not None and not repo.strip():
        # Path("") is the current directory: an empty value (an unset variable in a script)
        # must not quietly become it.
        typer.echo(
            "::error::--repo is empty: give the path of the checkout, or leave --repo out to "
            "work in GITHUB_WORKSPACE or the current directory"
        )
        raise typer.Exit(2)
    from amelia.action.engine import ActionRequest, run_action

    request = ActionRequest(
        event_name=event_name,
        event_path=event_path,
        workspace=Path(repo) if repo is not None else None,
        default_workspace=Path(),
        dry_run=True if dry_run else None,
    )
    raise typer.Exit(run_action(request=request))


def register(app: typer.Typer) -> None:
    """Add the Action commands to the `amelia` app."""
    app.command("action")(action)
    app.command("run")(run)
