"""Which of the repository's workflows amelia runs on a pushed commit.

The workflows GitHub lists, read at the pushed commit to see their triggers (`on:`): those
that run on `push` or `pull_request` (or, when `.github/amelia.yml` names some under
`ci.workflows`, those), and of them the ones that also accept `workflow_dispatch`, which
the job's token may start. A workflow whose jobs use the amelia action is amelia's own,
never CI: running it would run amelia again.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass

from amelia.ci.config import CiConfig
from amelia.github.port import GitHubReads
from amelia.github.workflows import WorkflowInfo, runs_amelia, workflow_triggers

__all__ = ["CI_EVENTS", "ChosenWorkflows", "choose_workflows", "names_workflow"]

CI_EVENTS = frozenset({"push", "pull_request", "pull_request_target"})
"""Triggers that make a workflow the repository's CI."""


@dataclass(frozen=True)
class ChosenWorkflows:
    """The repository's CI workflows on a commit, and which of them accept a dispatch."""

    ci: tuple[WorkflowInfo, ...]
    dispatchable: tuple[WorkflowInfo, ...]
    _: KW_ONLY
    unknown: tuple[str, ...] = ()
    """Workflows `ci.workflows` names that the repository does not have."""
    own: tuple[WorkflowInfo, ...] = ()
    """Workflows `ci.workflows` names that use the amelia action: left out."""


def names_workflow(workflow: WorkflowInfo, name: str) -> bool:
    """Whether `name` (a file name, a path or a workflow's name) is `workflow`."""
    return name in (workflow.path, workflow.file_name, workflow.name)


async def choose_workflows(github: GitHubReads, head_sha: str, config: CiConfig) -> ChosenWorkflows:
    """The CI workflows at commit `head_sha` (their files as they are there). Raises
    `GitHubError` when the workflows cannot be read (e.g. 403 without `actions: read`)."""
    listed = [w for w in await github.list_workflows() if w.state == "active"]
    if config.workflows:
        named = [w for w in listed if any(names_workflow(w, n) for n in config.workflows)]
        unknown = tuple(
            n for n in config.workflows if not any(names_workflow(w, n) for w in listed)
        )
    else:
        named, unknown = listed, ()
    ci: list[WorkflowInfo] = []
    dispatchable: list[WorkflowInfo] = []
    own: list[WorkflowInfo] = []
    for workflow in named:
        text = (await github.get_file(workflow.path, head_sha) or b"").decode("utf-8", "replace")
        triggers = workflow_triggers(text)
        if not config.workflows and not triggers & CI_EVENTS:
            continue
        if runs_amelia(text):
            own.append(workflow)
            continue
        ci.append(workflow)
        if "workflow_dispatch" in triggers:
            dispatchable.append(workflow)
    return ChosenWorkflows(
        tuple(ci), tuple(dispatchable), unknown=unknown, own=tuple(own) if config.workflows else ()
    )
