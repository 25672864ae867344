"""A pull request's head fetched for an agent to read, and how the agent runs on it."""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from amelia.action.modes._pull_head._fork_reviews import files_only, head_is_data
from amelia.action.modes._pull_head._pull_head import PullHead, check_out_pull, head_as_data
from amelia.action.modes.base import ModeContext
from amelia.github.models import PullInfo

if TYPE_CHECKING:
    from amelia.pipeline import RunContext

__all__ = ["fetched_head", "head_run_context"]


@asynccontextmanager
async def fetched_head(ctx: ModeContext, pull: PullInfo) -> AsyncIterator[PullHead]:
    """The pull's head for an agent to read: checked out in the checkout, or, when
    `head_is_data`, kept as data in a directory of its own, removed on leaving."""
    if not head_is_data(pull, ctx.event):
        remote = ctx.checkout.remote()
        checked = await asyncio.to_thread(check_out_pull, ctx.checkout.git, pull, remote=remote)
        yield checked
        return
    with tempfile.TemporaryDirectory(prefix="amelia-pull-head-") as scratch:
        # Like a checkout: whoever runs the agents may read it.
        await asyncio.to_thread(Path(scratch).chmod, 0o755)
        remote = ctx.checkout.remote()
        head = Path(scratch) / "head"
        checked = await asyncio.to_thread(head_as_data, ctx.checkout.git, pull, head, remote=remote)
        yield checked


def head_run_context(ctx: ModeContext, checked: PullHead, *, preexisting: bool) -> RunContext:
    """How an agent reads the fetched head: in its directory, with file-reading tools alone
    when the head is only data (`preexisting`: see `ModeContext.run_context`)."""
    make_driver = files_only(ctx.make_driver) if checked.as_data else ctx.make_driver
    return ctx.run_context(
        where=(checked.directory, checked.git), make_driver=make_driver, preexisting=preexisting
    )
