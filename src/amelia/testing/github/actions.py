"""GitHub Actions in the local GitHub: workflows read from the repository's files, runs
started by a dispatch or by a push, completed with scripted conclusions and logs.

A test scripts what the next runs of a workflow do (`RunScript`: the conclusion, the job
and step that fail, the log, how many reads see the run unfinished) and the runs play
that out as amelia reads them: no clock, so no test depends on time. Like GitHub:

- the workflows are the `.github/workflows/*.yml` files of the default branch; a dispatch
  reads the file at the branch dispatched and is refused (422) without `workflow_dispatch`
  among its triggers;
- a push made with the job's token starts no workflow; a push made with another token
  starts the workflows that run on `push` (or `pull_request`, for the branch of an open
  pull request), and so does opening a pull request with it (those on `pull_request`);
- the job's token needs `actions: write` to dispatch and `actions: read` to read runs
  (`actions_permission`), else 403 `Resource not accessible by integration`;
- each run is one check suite of the app `github-actions`, each job one check run.
"""

from __future__ import annotations

import fnmatch
import hashlib
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

import yaml

from amelia.errors import GitError
from amelia.git import run_git, run_git_bytes
from amelia.github.workflows import workflow_triggers
from amelia.testing.github.records import ApiError, Repository, now

__all__ = [
    "ActionsPermission",
    "OtherCheckSuite",
    "RunScript",
    "WorkflowFile",
    "WorkflowJob",
    "WorkflowRun",
    "WorkflowsOfRepository",
    "check_permission",
]

ActionsPermission = Literal["write", "read", "none"]
FORBIDDEN = "Resource not accessible by integration"
DEFAULT_LOG = "Run tests\nall checks passed\n"


@dataclass(frozen=True)
class RunScript:
    """What one run of a workflow does: it is seen unfinished by `reads` reads of its
    commit's runs or check suites (None: it never finishes), then completes with
    `conclusion`; its job `job` fails at step `step` (when the conclusion is not success)
    and its log is `log`."""

    conclusion: str = "success"
    job: str = "test"
    step: str = "Run tests"
    log: str = DEFAULT_LOG
    reads: int | None = 1


@dataclass
class WorkflowJob:
    id: int
    name: str
    status: str
    conclusion: str | None
    steps: list[tuple[str, str, str | None]]
    """(name, status, conclusion) of each step."""
    log: str


@dataclass
class WorkflowRun:
    id: int
    workflow_id: int
    name: str
    path: str
    head_branch: str
    head_sha: str
    event: str
    script: RunScript
    job: WorkflowJob
    created_at: str = field(default_factory=now)
    status: str = "queued"
    conclusion: str | None = None
    reads_left: int | None = 1

    @property
    def check_suite_id(self) -> int:
        return self.id + 500_000


@dataclass
class OtherCheckSuite:
    """A check suite another app (not GitHub Actions) reports on a commit, with one check
    run `name` whose page is `details_url`."""

    id: int
    app: str
    """The app's slug (`codecov`)."""
    head_sha: str
    name: str
    status: str = "completed"
    conclusion: str | None = "success"
    details_url: str = ""
    created_at: str = field(default_factory=now)


@dataclass(frozen=True)
class WorkflowFile:
    id: int
    path: str
    name: str


def _workflow_name(path: str, text: str) -> str:
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("name"), str):
        return str(document["name"])
    return path


def _workflow_id(path: str) -> int:
    """A stable id per path, as GitHub keeps one per workflow file."""
    return 10_000 + int(hashlib.sha256(path.encode()).hexdigest()[:6], 16)


class WorkflowsOfRepository:
    """The Actions side of one repository of the local GitHub."""

    def __init__(self, repository: Repository, next_id: Callable[[], int]) -> None:
        self.repository = repository
        self._next_id = next_id
        self.runs: list[WorkflowRun] = []
        self.scripts: dict[str, deque[RunScript]] = {}
        self.dispatches: list[tuple[str, str]] = []
        """(workflow path, ref) of every dispatch accepted."""
        self.other_suites: list[OtherCheckSuite] = []
        """Check suites of other apps than GitHub Actions."""
        self.apps: list[OtherCheckSuite] = []
        """What each other app reports on a pushed commit (`id` and `head_sha` unset)."""

    # files ---------------------------------------------------------------------------------

    def _bare(self) -> Path:
        if self.repository.bare_path is None:
            raise ApiError(404, "Not Found")
        return self.repository.bare_path

    def file_at(self, path: str, ref: str) -> str | None:
        try:
            data = run_git_bytes(["--git-dir", str(self._bare()), "show", f"{ref}:{path}"], None)
        except GitError:
            return None
        return data.decode("utf-8", "replace")

    def commit(self, sha: str) -> dict[str, str] | None:
        """The commit `sha` as a run's `head_commit` shows it (None when it is not there):
        `id`, `tree_id`, `message`, `timestamp`, and its author's and committer's name and
        email."""
        layout = "%H%x00%T%x00%cI%x00%an%x00%ae%x00%cn%x00%ce%x00%B"
        try:
            shown = run_git(
                ["--git-dir", str(self._bare()), "show", "-s", f"--format={layout}", sha], None
            )
        except (GitError, ApiError):
            return None
        fields = shown.split("\0", 7)
        if len(fields) < 8:
            return None
        keys = (
            *("id", "tree_id", "timestamp", "author_name", "author_email"),
            *("committer_name", "committer_email", "message"),
        )
        return dict(zip(keys, [*fields[:7], fields[7].rstrip("\n")], strict=True))

    def workflows(self) -> list[WorkflowFile]:
        """The workflow files of the default branch, by path."""
        if self.repository.bare_path is None:
            return []
        ref = self.repository.default_branch
        try:
            listed = run_git(
                [
                    "--git-dir",
                    str(self._bare()),
                    "ls-tree",
                    "--name-only",
                    f"{ref}:.github/workflows",
                ],
                None,
            ).split()
        except GitError:
            return []
        found: list[WorkflowFile] = []
        for name in sorted(listed):
            if not name.endswith((".yml", ".yaml")):
                continue
            path = f".github/workflows/{name}"
            text = self.file_at(path, ref) or ""
            found.append(WorkflowFile(_workflow_id(path), path, _workflow_name(path, text)))
        return found

    def workflow(self, key: str) -> WorkflowFile:
        """A workflow by id or file name, as GitHub's `{workflow_id}` takes either; 404."""
        for workflow in self.workflows():
            if key in (str(workflow.id), workflow.path.rsplit("/", 1)[-1]):
                return workflow
        raise ApiError(404, "Not Found")

    def branch_head(self, branch: str) -> str | None:
        try:
            return run_git(
                ["--git-dir", str(self._bare()), "rev-parse", "--verify", f"refs/heads/{branch}"],
                None,
            ).strip()
        except GitError:
            return None

    # runs ----------------------------------------------------------------------------------

    def script(self, workflow: str, *scripts: RunScript) -> None:
        """Queue what the next runs of `workflow` (a file name or path) do."""
        self.scripts.setdefault(workflow.rsplit("/", 1)[-1], deque()).extend(scripts)

    def start_run(self, workflow: WorkflowFile, branch: str, sha: str, event: str) -> WorkflowRun:
        queue = self.scripts.get(workflow.path.rsplit("/", 1)[-1])
        script = queue.popleft() if queue else RunScript()
        job = WorkflowJob(self._next_id(), script.job, "queued", None, [], script.log)
        run = WorkflowRun(
            self._next_id(),
            workflow.id,
            workflow.name,
            workflow.path,
            branch,
            sha,
            event,
            script,
            job,
            reads_left=script.reads,
        )
        run.status = run.job.status = "in_progress"
        run.job.steps = [
            ("Set up job", "completed", "success"),
            (script.step, "in_progress", None),
        ]
        self.runs.append(run)
        return run

    def _read(self, run: WorkflowRun) -> None:
        """One read of `run`: it completes once no unfinished read is left."""
        if run.status == "completed" or run.reads_left is None:
            return
        if run.reads_left > 0:
            run.reads_left -= 1
            return
        failed = run.script.conclusion != "success"
        run.status = run.job.status = "completed"
        run.conclusion = run.job.conclusion = run.script.conclusion
        run.job.steps = [
            ("Set up job", "completed", "success"),
            ("Run actions/checkout@v4", "completed", "success"),
            (run.script.step, "completed", run.script.conclusion if failed else "success"),
            ("Complete job", "completed", "success"),
        ]

    def read_runs(
        self, head_sha: str | None, event: str | None = None, branch: str | None = None
    ) -> list[WorkflowRun]:
        """The runs of `head_sha` (all when None), newest first; reading moves each
        unfinished one a read further."""
        found = [
            run
            for run in self.runs
            if (head_sha is None or run.head_sha == head_sha)
            and (event is None or run.event == event)
            and (branch is None or run.head_branch == branch)
        ]
        for run in found:
            self._read(run)
        return sorted(found, key=lambda run: -run.id)

    def run(self, run_id: int) -> WorkflowRun:
        for run in self.runs:
            if run.id == run_id:
                return run
        raise ApiError(404, "Not Found")

    def job(self, job_id: int) -> tuple[WorkflowRun, WorkflowJob]:
        for run in self.runs:
            if run.job.id == job_id:
                return run, run.job
        raise ApiError(404, "Not Found")

    def dispatch(self, key: str, ref: object) -> WorkflowRun:
        """GitHub's `workflow_dispatch`: 422 without a ref, for an unknown branch or a
        workflow without the trigger at that branch."""
        workflow = self.workflow(key)
        if not isinstance(ref, str) or not ref:
            raise ApiError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
        branch = ref.removeprefix("refs/heads/")
        sha = self.branch_head(branch)
        if sha is None:
            raise ApiError(422, f"No ref found for: {ref}")
        text = self.file_at(workflow.path, sha) or ""
        if "workflow_dispatch" not in workflow_triggers(text):
            raise ApiError(422, "Workflow does not have 'workflow_dispatch' trigger")
        self.dispatches.append((workflow.path, branch))
        return self.start_run(workflow, branch, sha, "workflow_dispatch")

    def pushed(self, branch: str, sha: str, *, pull_open: bool) -> list[WorkflowRun]:
        """Runs a push of `branch` to `sha` starts (made with a token whose pushes start
        workflows)."""
        for app in self.apps:
            status = "completed" if app.conclusion is not None else "in_progress"
            suite_id = self._next_id()
            self._next_id()  # its check run's
            self.other_suites.append(
                replace(app, id=suite_id, head_sha=sha, status=status, created_at=now())
            )
        started: list[WorkflowRun] = []
        for workflow in self.workflows():
            text = self.file_at(workflow.path, sha) or ""
            triggers = workflow_triggers(text)
            if "push" in triggers and _branch_matches(text, "push", branch):
                started.append(self.start_run(workflow, branch, sha, "push"))
            elif "pull_request" in triggers and pull_open:
                started.append(self.start_run(workflow, branch, sha, "pull_request"))
        return started

    def pull_opened(self, branch: str, base: str) -> list[WorkflowRun]:
        """Runs opening a pull request from `branch` into `base` starts (made with a token
        whose events start workflows): those of the workflows on `pull_request`."""
        sha = self.branch_head(branch)
        if sha is None:
            return []
        started: list[WorkflowRun] = []
        for workflow in self.workflows():
            text = self.file_at(workflow.path, sha) or ""
            if "pull_request" in workflow_triggers(text) and _branch_matches(
                text, "pull_request", base
            ):
                started.append(self.start_run(workflow, branch, sha, "pull_request"))
        return started


def _branch_matches(text: str, event: str, branch: str) -> bool:
    """Whether `event`'s `branches:` filter (glob patterns) takes `branch`; no filter
    takes every branch."""
    document = yaml.safe_load(text)
    on = document.get("on", document.get(True)) if isinstance(document, dict) else None
    config = on.get(event) if isinstance(on, dict) else None
    patterns = config.get("branches") if isinstance(config, dict) else None
    if not isinstance(patterns, list):
        return True
    return any(fnmatch.fnmatchcase(branch, str(pattern)) for pattern in patterns)


def check_permission(permission: ActionsPermission, *, write: bool) -> None:
    """403 as GitHub answers a job token without the `actions` permission needed."""
    if permission == "none" or (write and permission != "write"):
        raise ApiError(403, FORBIDDEN)
