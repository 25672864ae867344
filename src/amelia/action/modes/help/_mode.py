"""`/amelia help` and unknown commands: reply with the list of commands."""

from __future__ import annotations

from amelia.action.modes._replies import post_where_asked
from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.github.comments import render_help, render_reply

__all__ = ["MODE", "run"]


async def run(ctx: ModeContext, _: None) -> ModeOutcome:
    command = ctx.command
    if command.kind == "help":
        body = render_help(ctx.inputs.trigger_phrase)
    else:
        body = render_reply(command.reply, ctx.redactor)
    if command.number is None:
        ctx.io.notice(body)  # a dispatched `help` has no issue to answer on
        return ModeOutcome()
    await post_where_asked(ctx.github, command, body)
    return ModeOutcome()


MODE = Mode(name="help", run=run, needs_permission=False, needs_workspace=False)
