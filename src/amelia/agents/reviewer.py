"""The reviewer: reads the change since the base ref and returns a structured verdict.

It reviews committed work (`git diff <base>...HEAD`) and whatever the developer left
uncommitted, so the pipeline works whether or not anything was committed between stages.
An incremental review (`ReviewScope(kind="incremental")`) reads only the commits since the
last reviewed one, with the list of files the whole change touches and the earlier findings
still open, and says which of those the new commits fixed.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Collection, Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from amelia.agents.agent_run import AgentRun
from amelia.agents.prompts import (
    REVIEWER_INSTRUCTIONS,
    as_data,
    check_section,
    ci_section,
    issue_section,
    request_section,
    with_project_instructions,
)
from amelia.agents.verdict import ReviewVerdict, parse_review
from amelia.core.state import ExecutionState, PriorFinding, ReviewResult, ReviewScope
from amelia.core.types import PathInstruction, ReviewOptions, StreamEvent, StreamEventType
from amelia.drivers.base import AgenticMessageType, DriverInterface
from amelia.git import Changes, Git, collect_changes

__all__ = [
    "AGENT",
    "MAX_PATH_INSTRUCTIONS_CHARS",
    "Reviewer",
    "build_review_prompt",
    "path_instructions_for",
]


AGENT = "reviewer"


INCREMENTAL_TASK = """This pull request was reviewed before, up to commit `{base}`. Review only
what the commits since then changed (the diff above), in the context of the whole pull
request: the files it changes are listed above, and you may read them. Judge the new
commits: approve when they are correct. Do not repeat the earlier findings listed above;
put the id of each one these commits fix in `fixed` and leave the rest out of your
comments: they stay open on their own."""


def _finding_line(finding: PriorFinding) -> str:
    where = f"{finding.path}:{finding.line}" if finding.line else finding.path
    text = " ".join(finding.body.split())
    return f"- id {finding.id}: `{where}` ({finding.severity}) {text}"


def build_review_prompt(
    state: ExecutionState, changes: Changes, *, scope: ReviewScope | None = None
) -> str:
    parts = issue_section(state.issue)
    parts += request_section(state.request)
    if state.plan_markdown:
        parts += ["## Plan the change implements", as_data("plan", state.plan_markdown), ""]
    if scope is None or scope.kind == "full":
        parts += [
            f"## Diff against `{changes.base_ref}`",
            as_data("diff", changes.as_text()),
            "",
            *check_section(state.last_check),
            *ci_section(state.last_ci),
            "## Your Task",
            "Review this change and return your verdict.",
        ]
        return "\n".join(parts)
    findings = "\n".join(_finding_line(f) for f in scope.open_findings) or "(none)"
    parts += [
        "## Files this pull request changes",
        as_data("files", "\n".join(scope.changed_files) or "(none)"),
        "",
        "## Earlier findings still open",
        as_data("findings", findings),
        "",
        f"## New commits since the last review (`{changes.base_ref}..HEAD`)",
        as_data("diff", changes.as_text()),
        "",
        *check_section(state.last_check),
        *ci_section(state.last_ci),
        "## Your Task",
        INCREMENTAL_TASK.format(base=changes.base_ref),
    ]
    return "\n".join(parts)


MAX_PATH_INSTRUCTIONS_CHARS = 8_000
"""Upper bound of the path instructions added to one review's instructions."""


def path_instructions_for(paths: Sequence[str], instructions: Sequence[PathInstruction]) -> str:
    """The instructions whose `path` pattern matches a changed path (fnmatch: `*` matches
    `/` too), each under a heading naming the pattern; cut to `MAX_PATH_INSTRUCTIONS_CHARS`."""
    parts: list[str] = []
    room = MAX_PATH_INSTRUCTIONS_CHARS
    for item in instructions:
        matched = [path for path in paths if fnmatchcase(path, item.path)]
        if not matched or room <= 0:
            continue
        part = f"### For changes to `{item.path}` ({len(matched)} file(s))\n\n{item.instructions}"
        parts.append(part[:room])
        room -= len(part)
    return "\n\n".join(parts)


class Reviewer:
    """Reviews the worktree's changes; `review()` streams `(state, event)` pairs."""

    def __init__(
        self,
        driver: DriverInterface,
        *,
        project_instructions: str = "",
        options: ReviewOptions | None = None,
    ) -> None:
        """`project_instructions`: the repository's trusted instructions for this agent;
        `options`: paths left out of the diff and instructions by path."""
        self.driver = driver
        self.project_instructions = project_instructions
        self.options = options or ReviewOptions()

    @property
    def instructions(self) -> str:
        return with_project_instructions(REVIEWER_INSTRUCTIONS, self.project_instructions)

    def instructions_for(self, changes: Changes) -> str:
        """The instructions, with the path instructions that match the changed paths."""
        by_path = path_instructions_for(changes.paths, self.options.path_instructions)
        project = "\n\n".join(p for p in (self.project_instructions, by_path) if p.strip())
        return with_project_instructions(REVIEWER_INSTRUCTIONS, project)

    async def review(
        self,
        state: ExecutionState,
        *,
        workflow_id: str,
        repo_dir: Path,
        base_ref: str,
        scope: ReviewScope | None = None,
        skip: Collection[str] = (),
        git: Git | None = None,
    ) -> AsyncGenerator[tuple[ExecutionState, StreamEvent], None]:
        """Review the changes since `base_ref`; the last state holds `last_review`.
        Uncommitted paths in `skip` were there before the agents ran: not part of the change.
        `git` is how amelia's own git reads `repo_dir` (None: plain git).

        With an incremental `scope` the prompt holds its files and open findings too.
        Raises `AgentRunFailedError` when the driver ends with an error result.
        """
        changes = await collect_changes(
            git or repo_dir, base_ref, skip=skip, exclude=self.options.ignore_paths
        )
        iteration = state.review_iteration + 1
        if changes.is_empty:
            review = ReviewResult(
                verdict="changes_requested",
                summary=f"There are no changes since {base_ref} to review.",
            )
            yield (
                state.evolve(last_review=review, review_iteration=iteration, base_ref=base_ref),
                StreamEvent(
                    type=StreamEventType.AGENT_OUTPUT,
                    content=review.summary,
                    agent=AGENT,
                    workflow_id=workflow_id,
                ),
            )
            return

        run = AgentRun(AGENT, workflow_id, state)
        async for message in self.driver.execute_agentic(
            prompt=build_review_prompt(state, changes, scope=scope),
            cwd=str(repo_dir),
            instructions=self.instructions_for(changes),
            schema=ReviewVerdict,
        ):
            new_state, event = run.apply(message)
            if message.type == AgenticMessageType.RESULT and not message.is_error:
                new_state = run.update(
                    last_review=parse_review(message.content),
                    review_iteration=iteration,
                    base_ref=base_ref,
                )
            yield new_state, event
        run.check_finished()
