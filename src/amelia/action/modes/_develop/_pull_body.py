"""amelia's part of a pull request's description: what the change is, how it was reviewed
and tested, and what a person must still check; rewritten in place on every run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from amelia.action.checkout import held_back_lines
from amelia.action.modes._develop._pull_description import ChangeReport
from amelia.action.modes._verdicts import CI_NOT_PASSED, NOT_ALL_PUSHED
from amelia.ci.render import ci_lines
from amelia.github.markers import BODY_BEGIN, BODY_END, marker
from amelia.text import code_fence, inline_code

if TYPE_CHECKING:
    from amelia.action.checkout import HeldBackWork
    from amelia.core.ci import CiReport
    from amelia.core.state import CheckRun
    from amelia.git import Leak

__all__ = ["check_lines", "merge_pull_body", "pull_body"]


def pull_body(
    number: int,
    plan_path: str,
    plan_url: str,
    verdict: str | None,
    *,
    flagged: tuple[Leak, ...] = (),
    withheld: tuple[str, ...] = (),
    check: CheckRun | None = None,
    report: ChangeReport | None = None,
    stopped: str | None = None,
    held_back: HeldBackWork | None = None,
    ci: CiReport | None = None,
) -> str:
    """amelia's part of the pull request's description, between its begin and end markers.

    `flagged` are strings shaped like credentials in the pushed change, `withheld` files the
    agents wrote that were not committed: both are for the person who reviews. `check` is
    the test command's last run (its tail collapsed). `report` lists the change by file,
    the review rounds, the tests the developer ran and the cost. `stopped` says why the
    run ended before the reviewer saw this change (the budget). `held_back` are the files
    of the change GitHub would refuse in a push: named, with their change as a patch.
    `ci` is the repository's CI on the pushed commit: each workflow with a link."""
    lines = [
        BODY_BEGIN,
        marker("implement"),
        f"Closes #{number}",
        "",
        f"Implements the plan [`{plan_path}`]({plan_url}).",
        "",
        *(
            [
                f"> [!WARNING]\n> The run {stopped}: the reviewer has not reviewed this "
                "change, and it may be unfinished.",
                "",
            ]
            if stopped
            else []
        ),
        *(report.render() if report is not None else []),
        "This draft was written by amelia's developer agent and checked by its reviewer "
        "agent; a human review decides whether it is merged.",
    ]
    if verdict == NOT_ALL_PUSHED:
        lines += [
            "",
            f"Latest automated verdict: **{verdict}**: the reviewer found nothing to change, "
            "but part of the change is not on this branch (see *Not pushed* below), so it is "
            "not approved.",
        ]
    elif verdict == CI_NOT_PASSED:
        lines += [
            "",
            f"Latest automated verdict: **{verdict}**: the reviewer found nothing to change, "
            "but the repository's CI on this commit failed or has not finished (see below), "
            "so it is not approved.",
        ]
    elif verdict:
        lines += ["", f"Latest automated verdict: **{verdict}**."]
    if flagged:
        found = ", ".join(f"`{leak.path}` ({leak.kind})" for leak in flagged)
        lines += [
            "",
            f"> [!WARNING]\n> Strings shaped like credentials are in {found}. Check that "
            "none is a real secret before merging.",
        ]
    if withheld:
        files = ", ".join(f"`{path}`" for path in withheld)
        lines += [
            "",
            f"Not committed: {files}: the agents wrote them, but their names mark them as "
            "credential files.",
        ]
    if held_back is not None:
        lines += ["", *held_back_lines(held_back)]
    if check is not None:
        lines += ["", *check_lines(check)]
    if ci is not None and (shown := ci_lines(ci)):
        lines += ["", *shown]
    return "\n".join([*lines, BODY_END]) + "\n"


def check_lines(check: CheckRun) -> list[str]:
    """`Tests: <command> — passed` (or `— failed (exit N)`), run by amelia, with the tail of
    its output collapsed."""
    tail = check.tail.rstrip() or "(no output)"
    tail_fence = code_fence(tail)
    return [
        f"Tests: {inline_code(check.command)} — {check.outcome}",
        "",
        "<details>",
        f"<summary>Last lines of the test command's output (run by amelia after round "
        f"{check.round})</summary>",
        "",
        tail_fence,
        tail,
        tail_fence,
        "",
        "</details>",
    ]


def merge_pull_body(current: str, ours: str) -> str:
    """`current` (the description as it is on GitHub) with amelia's part replaced by `ours`.

    Only the text between amelia's begin and end markers is amelia's: what people wrote
    before or after it stays as it is. A description without amelia's part gets it appended.
    """
    begin = current.find(BODY_BEGIN)
    end = current.find(BODY_END, begin + len(BODY_BEGIN)) if begin >= 0 else -1
    if begin >= 0 and end >= 0:
        after = current[end + len(BODY_END) :].removeprefix("\r\n").removeprefix("\n")
        return current[:begin] + ours + after
    if not current.strip():
        return ours
    return current.rstrip() + "\n\n" + ours
