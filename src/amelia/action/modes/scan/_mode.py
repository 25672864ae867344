"""Scheduled scan (`schedule`, or `workflow_dispatch` with `command: scan`): hand out the
open issues carrying `label_trigger` that have no plan branch yet, at most `scan_limit`.

What it hands out is written as a JSON list of numbers to the `issues` output, for a second
job's `strategy.matrix` to plan one per runner. With `max_issues` > 0 this job plans the
first that many of them itself, one after another, with the plan mode, and leaves those
out of the list: both together stay within the bound (`amelia.action.modes.scan._queue`, which
also states the order). The rest wait for the next scan; the notice and the job summary
say how many waited, were handed out and are left.

Listing is one paginated issue list by label (requests grow with pages, not issues) and one
`git ls-remote` for every plan branch.
Only maintainers can schedule or dispatch a workflow, so no permission check is made.
"""

from __future__ import annotations

import asyncio
import json
import math
import re

from loguru import logger

from amelia.action.modes.base import Conclusion, Mode, ModeContext, ModeOutcome
from amelia.action.modes.scan._queue import (
    MATRIX_JOB_LIMIT,
    ScanBound,
    ScanSelection,
    select_issues,
    without_plan,
)
from amelia.git import Repo, check_out_detached, fetch, remote_default_branch, remote_heads
from amelia.repo_config.model import ScanConfig

__all__ = ["MODE", "planned_issue_numbers", "run", "scan_report"]


def planned_issue_numbers(repo: Repo, prefix: str) -> set[int]:
    """Issue numbers that already have a `<prefix>issue-<n>` branch on origin."""
    pattern = re.compile(re.escape(prefix) + r"issue-(\d+)")
    found: set[int] = set()
    for name in remote_heads(repo, f"{prefix}issue-*"):
        matched = pattern.fullmatch(name)
        if matched:
            found.add(int(matched.group(1)))
    return found


def _order(config: ScanConfig) -> str:
    parts = []
    if config.prefer_labels:
        labels = ", then ".join(f"`{label}`" for label in config.prefer_labels)
        parts.append(f"issues labelled {labels} first")
    if config.prefer_thumbs_up:
        parts.append("more 👍 first")
    parts.append("oldest first")
    return "; ".join(parts)


def _split(max_issues: int, limit: int) -> str:
    """What `max_issues` does with the issues a scan hands out, as it happens."""
    if max_issues == 0:
        return "all of them go to the `issues` output, for the matrix (`max_issues` is 0)."
    return (
        f"the first {min(max_issues, limit)} of them are planned in this job (`max_issues` "
        f"is {max_issues}), the rest by the matrix."
    )


def scan_report(
    selection: ScanSelection,
    bound: ScanBound,
    config: ScanConfig,
    *,
    label: str,
    labelled: int,
    branch_prefix: str,
    max_issues: int = 0,
) -> tuple[str, str]:
    """The scan's notice (one line) and its section of the job summary (Markdown)."""
    here, matrix, left = (
        len(selection.planned_here),
        len(selection.for_matrix),
        len(selection.left),
    )
    notice = (
        f"amelia scan: {labelled} open issue(s) labelled {label}, {selection.waited} "
        f"without a plan branch: {selection.handed_out} handed out ({here} planned in this "
        f"job, {matrix} in `issues`), {left} left for the next scan "
        f"(at most {bound.limit} per scan)"
    )
    rows = [
        ("waited: open, labelled, no plan branch", selection.waited),
        (f"handed out by this scan (at most {bound.limit})", selection.handed_out),
        ("· planned in this job (`max_issues`)", here),
        ("· in the `issues` output, for the matrix", matrix),
        ("left for the next scan", left),
    ]
    lines = [
        f"### Issues labelled `{label}` waiting for a plan",
        "",
        "| | issues |",
        "|---|---:|",
        *(f"| {name} | {count:,} |" for name, count in rows),
        "",
        f"- At most **{bound.limit}** issues per scan, set by {bound.setting} (GitHub runs "
        f"at most {MATRIX_JOB_LIMIT} jobs from one matrix); {_split(max_issues, bound.limit)}",
        f"- Order: {_order(config)}. An issue has a plan once `{branch_prefix}issue-<n>` "
        "exists; one whose plan failed is handed out again.",
    ]
    if left:
        scans = math.ceil(left / bound.limit)
        within = "the next scan" if scans == 1 else f"the next {scans} scans"
        lines.append(
            f"- The {left:,} left are handed out by {within} at this bound, unless new "
            "issues come before them in this order."
        )
    if max_issues > bound.limit:
        lines.append(
            f"- `max_issues` is {max_issues}, above the bound: this job plans at most "
            f"{bound.limit}."
        )
    return notice, "\n".join(lines)


async def run(ctx: ModeContext, _: None) -> ModeOutcome:
    from dataclasses import replace

    from amelia.action.modes import plan
    from amelia.github.events import Command

    label = ctx.inputs.label_trigger
    config = ctx.repo_config.scan
    bound = ctx.settings.scan_bound
    found = await ctx.github.list_labelled_issues(label)
    labelled = [issue for issue in found if not issue.is_pull_request]
    planned = await asyncio.to_thread(
        planned_issue_numbers, ctx.checkout.remote(), ctx.inputs.branch_prefix
    )
    selection = select_issues(
        without_plan(labelled, planned),
        limit=bound.limit,
        plan_here=ctx.inputs.max_issues,
        config=config,
    )
    notice, summary = scan_report(
        selection,
        bound,
        config,
        label=label,
        labelled=len(labelled),
        branch_prefix=ctx.inputs.branch_prefix,
        max_issues=ctx.inputs.max_issues,
    )
    # Issues this job plans itself are left out of the list, so no matrix job plans them too.
    outputs = {"issues": json.dumps(list(selection.for_matrix))}
    failed: list[int] = []
    for number in selection.planned_here:
        command = Command(kind="plan", number=number, requested_by=ctx.command.requested_by)
        # Each plan starts from the default branch, as a fresh job would.
        await asyncio.to_thread(_back_to_default, ctx.checkout.remote())
        try:
            await plan.run(replace(ctx, command=command), None)
        except Exception as error:  # one failing issue must not stop the others
            logger.error("planning issue #{} failed: {}", number, error)
            failed.append(number)
    conclusion: Conclusion = "failure" if failed else "success"
    return ModeOutcome(
        conclusion=conclusion,
        outputs=outputs,
        failure_reason=f"planning failed for {', '.join(f'#{n}' for n in failed)}"
        if failed
        else None,
        notice=notice,
        warnings=(bound.warning,) if bound.warning else (),
        summary=summary,
    )


def _back_to_default(repo: Repo) -> None:
    fetch(repo, [remote_default_branch(repo)])
    check_out_detached(repo, "FETCH_HEAD")


MODE = Mode(name="scan", run=run, needs_permission=False)
