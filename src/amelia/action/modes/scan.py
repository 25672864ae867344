"""Scheduled scan (`schedule`, or `workflow_dispatch` with `command: scan`): find the open
issues carrying `label_trigger` that have no plan branch yet.

They are written as a JSON list of numbers to the `issues` output, for a second job's
`strategy.matrix` to plan one per runner. With `max_issues` > 0 this job also plans up to
that many itself, one after another, with the plan mode, and leaves those out of the list.
Listing is one paginated issue list by label (requests grow with pages, not issues) and one
`git ls-remote` for every plan branch.
Only maintainers can schedule or dispatch a workflow, so no permission check is made.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

from loguru import logger

from amelia.action.modes.base import Mode, ModeContext, ModeOutcome
from amelia.git import check_out_detached, fetch, remote_default_branch, remote_heads

__all__ = ["MODE", "planned_issue_numbers", "run", "waiting_issues"]


def planned_issue_numbers(repo: Path, prefix: str) -> set[int]:
    """Issue numbers that already have a `<prefix>issue-<n>` branch on origin."""
    pattern = re.compile(re.escape(prefix) + r"issue-(\d+)")
    found: set[int] = set()
    for name in remote_heads(repo, f"{prefix}issue-*"):
        matched = pattern.fullmatch(name)
        if matched:
            found.add(int(matched.group(1)))
    return found


def waiting_issues(labelled: list[int], planned: set[int]) -> list[int]:
    """Labelled issues without a plan branch, oldest first."""
    return sorted(set(labelled) - planned)


async def run(ctx: ModeContext) -> ModeOutcome:
    from dataclasses import replace

    from amelia.action.modes import plan
    from amelia.github.events import Command

    label = ctx.inputs.label_trigger
    found = await asyncio.to_thread(ctx.github.list_labelled_issues, label)
    labelled = [issue.number for issue in found if not issue.is_pull_request]
    with ctx.workspace.authenticated():
        planned = await asyncio.to_thread(
            planned_issue_numbers, ctx.workspace.path, ctx.inputs.branch_prefix
        )
    waiting = waiting_issues(labelled, planned)
    notice = (
        f"amelia scan: {len(labelled)} open issue(s) labelled {label}, "
        f"{len(waiting)} without a plan branch"
    )
    # Issues this job plans itself are left out of the list, so no matrix job plans them too.
    handled = waiting[: ctx.inputs.max_issues]
    outputs = {"issues": json.dumps(waiting[len(handled) :])}
    failed: list[int] = []
    for number in handled:
        command = Command(kind="plan", number=number, requested_by=ctx.command.requested_by)
        # Each plan starts from the default branch, as a fresh job would.
        with ctx.workspace.authenticated():
            await asyncio.to_thread(_back_to_default, ctx.workspace.path)
        try:
            await plan.run(replace(ctx, command=command, progress=None))
        except Exception as error:  # one failing issue must not stop the others
            logger.error("planning issue #{} failed: {}", number, error)
            failed.append(number)
    if failed:
        return ModeOutcome(
            conclusion="failure",
            outputs=outputs,
            failure_reason=f"planning failed for {', '.join(f'#{n}' for n in failed)}",
            notice=notice,
        )
    return ModeOutcome(outputs=outputs, notice=notice)


def _back_to_default(repo: Path) -> None:
    fetch(repo, [remote_default_branch(repo)])
    check_out_detached(repo, "FETCH_HEAD")


MODE = Mode(name="scan", run=run, needs_permission=False)
