"""How plan files are named, and finding the plan an earlier run committed for an issue.

The architect renders the name from `Profile.plan_path_pattern` and saves the file (see
`amelia.agents.planfile`); this module is the one place that knows the pattern's shape,
so a later run can find the plan by its issue number.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

__all__ = ["PLAN_FILE_NAME", "existing_plan", "plan_path_pattern"]

PLAN_FILE_NAME = "{date}-issue-{number}-{slug}.md"
"""The file name of a plan under the plan directory (fields: see `render_plan_path`)."""


def plan_path_pattern(plan_dir: str) -> str:
    """The `Profile.plan_path_pattern` that saves plans under `plan_dir` (`.`: the
    repository's top folder, without a `./` in paths and links)."""
    return str(PurePosixPath(plan_dir) / PLAN_FILE_NAME)


def existing_plan(repo: Path, plan_dir: str, number: int) -> str | None:
    """The plan file an earlier run committed for issue `number`, relative to `repo`."""
    folder = repo / plan_dir
    if not folder.is_dir():
        return None
    found = sorted(
        {*folder.glob(f"*issue-{number}-*.md"), *folder.glob(f"*issue-{number}.md")},
        key=lambda path: path.name,
    )
    for path in reversed(found):
        relative = path.relative_to(repo).as_posix()
        if "{" not in relative and "}" not in relative and not path.is_symlink():
            return relative
    return None
