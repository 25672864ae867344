"""Run `amelia action` like a GitHub runner would, against local stand-ins for everything.

One `ActionHarness` holds: a bare git repository as `origin` (a small Python project on
`main`), served over git's HTTP protocol by a `FakeGitHubServer` seeded with the repository
(pushes need the token, as on GitHub), a checkout of it as the workspace (with the token
persisted the way the chosen actions/checkout version does, see `CheckoutCredentials`), a
`ScriptedAnthropicServer` for the Claude Code CLI, and a fresh HOME. `run()` writes the
event payload, builds the runner's environment (`GITHUB_*`, every input of action.yml as
`INPUT_*` with its default, `RUNNER_TEMP`, …) and starts amelia as a subprocess, returning
exit code, output, step outputs, summary and the requests both servers recorded during
that run. `run_engine()` runs the engine in this process instead, everything else as real
as `run()`'s (the drivers, PyGithub, the local servers). `run_in_process()` runs it in
this process from the same environment against the in-memory GitHub over the same state
(git still goes over the local server's HTTP, with the token), with `ScriptedAgents` on the
API driver and a `ManualClock` (see `amelia.action.engine.ActionPorts`).

    with ActionHarness(tmp_path) as h:
        number = h.add_issue("Add farewell", "Say goodbye too.")
        h.set_permission("maintainer", "write")
        result = h.run("issue_comment", h.comment_event(number, "/amelia plan"))
        assert result.exit_code == 0, result.stderr
        assert result.outputs["branch"] == "amelia/issue-1"
"""

from __future__ import annotations

import atexit
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any, Literal, Self
from urllib.parse import urlsplit

from amelia.action.engine import ActionPorts, ActionRequest, Clock, run_action
from amelia.config import process_environment, replaced_process_environment
from amelia.git import Git, run_git
from amelia.testing.action_inputs import runner_inputs
from amelia.testing.anthropic_script import RecordedRequest as ModelRequest
from amelia.testing.anthropic_script import ScriptFunction, Turn, text, tool_use
from amelia.testing.anthropic_server import ScriptedAnthropicServer
from amelia.testing.github_server import FakeGitHubServer
from amelia.testing.github_server import RecordedRequest as GitHubRequest
from amelia.testing.sample_repo import create_sample_repo
from amelia.testing.scripted_agents import AgentRequest, ScriptedAgents, say, shell
from amelia.testing.scripted_claude import role_of, scripted_claude_environment, step_of

__all__ = [
    "DEFAULT_PLAN",
    "DEFAULT_REPO",
    "DEFAULT_TOKEN",
    "FORK_REPO",
    "PROBE_COMMAND",
    "ActionHarness",
    "ActionRun",
    "ManualClock",
    "git",
    "parse_outputs",
    "plan_agents",
    "plan_script",
]


DEFAULT_REPO = "octo/app"
DEFAULT_TOKEN = "ghs_" + "T0kenForTheLocalFakeGitHub0123456789"
"""Shaped like a GitHub App installation token so token patterns apply to it too."""
FORK_REPO = "newcomer/app"
"""The fork `open_fork_pull` opens its pull request from."""
DEFAULT_PLAN = """# Farewell Implementation Plan

**Goal:** Add `farewell(name)` to greeter, mirroring `greet(name)`.

### Task 1: farewell function

**Files:**
- Modify: `greeter/core.py` (after `greet`)
- Test: `tests/test_farewell.py`

**Approach:** Follow the pattern of `greet` in `greeter/core.py:4-6`.
"""
HARNESS_MODEL_KEY = "sk-ant-local-fake-key"
"""The `anthropic_api_key` input of every run unless a test sets its own."""
CheckoutCredentials = Literal["v4", "v6", "v6-container", "none"]
"""How the workspace holds the token, as actions/checkout leaves it:

- `v4`: `http.<server>/.extraheader` in `.git/config`;
- `v6`: the header in `$RUNNER_TEMP/git-credentials-<uuid>.config`, included by
  `includeIf "gitdir:…"` entries for the checkout's git directory (and its worktrees), plus
  the pair a container action would match (`/github/workspace/.git` →
  `/github/runner_temp/…`), as actions/checkout writes both;
- `v6-container`: the same file and entries as a container action sees them: the entries
  for the runner's paths lead nowhere, those for the container's paths match;
- `none`: `persist-credentials: false`.
"""
PROBE_COMMAND = "cat .git/config"
"""What the scripted architect runs first: shows what an agent's tools can read."""


def plan_script(
    plan: str = DEFAULT_PLAN,
    probe: str | None = PROBE_COMMAND,
    roles: Mapping[str, Sequence[Turn]] | None = None,
) -> ScriptFunction:
    """The model's side of a run, by role and step. The architect first runs `probe`
    through Bash (None: skip it), then answers `plan`. `roles` adds or replaces the turn
    lists of other roles (developer, reviewer), for the modes that run them."""
    architect: list[Turn] = []
    if probe is not None:
        architect.append([tool_use("Bash", {"command": probe, "description": "Look around"})])
    architect.append([text(plan)])
    turns: dict[str, Sequence[Turn]] = {"architect": architect, **(roles or {})}

    def answer(request: ModelRequest) -> Turn:
        script = turns.get(role_of(request)) or [[text("Nothing to do.")]]
        return script[min(step_of(request), len(script) - 1)]

    return answer


def plan_agents(
    plan: str = DEFAULT_PLAN,
    probe: str | None = PROBE_COMMAND,
    roles: Mapping[str, Sequence[Any]] | None = None,
) -> ScriptedAgents:
    """`plan_script` for in-process runs: the architect first runs `probe` with its shell
    tool (None: skip it), then answers `plan`; `roles` adds or replaces other roles' turns
    (see `amelia.testing.scripted_agents`)."""
    architect: list[Any] = []
    if probe is not None:
        architect.append([shell(probe)])
    architect.append([say(plan)])
    return ScriptedAgents({"architect": architect, **(roles or {})})  # type: ignore[dict-item]


@dataclass
class ManualClock:
    """The clock of an in-process run: time stands still until a test moves it."""

    seconds: float = 0.0
    """Seconds since `start`."""
    start: datetime = field(default_factory=lambda: datetime(2026, 1, 2, 9, 30, tzinfo=UTC))
    """The wall clock at `seconds` 0 (UTC)."""

    def advance(self, seconds: float) -> None:
        self.seconds += seconds

    def now(self) -> datetime:
        return self.start + timedelta(seconds=self.seconds)

    def clock(self) -> Clock:
        return Clock(monotonic=lambda: self.seconds, now=self.now)


@dataclass(frozen=True)
class ActionRun:
    """One finished run and what the servers saw during it."""

    exit_code: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    github_requests: list[GitHubRequest]
    model_requests: list[ModelRequest]
    dry_run_dir: Path
    agent_requests: Sequence[AgentRequest] = ()
    """What the scripted agents' models were sent (in-process runs)."""

    @property
    def github_writes(self) -> list[GitHubRequest]:
        return [r for r in self.github_requests if r.method in ("POST", "PATCH", "PUT", "DELETE")]

    def model_text(self) -> str:
        """Every model request body as one JSON string, to search for leaked text."""
        bodies = [json.dumps(r.body) for r in self.model_requests]
        return "\n".join(bodies + [r.as_json() for r in self.agent_requests])


def parse_outputs(text: str) -> dict[str, str]:
    """Read a `GITHUB_OUTPUT` file: `name=value` lines and `name<<DELIMITER` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                block.append(inner)
            outputs[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            outputs[name] = value
    return outputs


def _outputs(environment: Mapping[str, str]) -> dict[str, str]:
    """The step outputs a run wrote to its `GITHUB_OUTPUT`."""
    return parse_outputs(Path(environment["GITHUB_OUTPUT"]).read_text(encoding="utf-8"))


def _summary(environment: Mapping[str, str]) -> str:
    """What a run wrote to its `GITHUB_STEP_SUMMARY`."""
    return Path(environment["GITHUB_STEP_SUMMARY"]).read_text(encoding="utf-8")


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` (trusting any owner) and return stdout; `GitError` on failure."""
    return run_git(args, Git(cwd).with_config({"safe.directory": "*"}))


@cache
def _sample_origin() -> Path:
    """The sample project as a bare repository, made once per process and copied by each
    harness (six git commands each otherwise); removed when the process that made it
    exits."""
    base = Path(tempfile.mkdtemp(prefix="amelia-sample-origin-"))
    atexit.register(_remove_if_made_here, base, os.getpid())
    seed = create_sample_repo(base / "seed")
    git(base, "clone", "--quiet", "--bare", str(seed), str(base / "origin.git"))
    shutil.rmtree(seed)
    return base / "origin.git"


def _remove_if_made_here(path: Path, pid: int) -> None:
    # A forked child that exits normally runs its parent's exit handlers too.
    if os.getpid() == pid:
        shutil.rmtree(path, ignore_errors=True)


class ActionHarness:
    """Local origin, workspace, GitHub and model servers for end-to-end Action runs."""

    def __init__(
        self,
        root: Path,
        *,
        script: ScriptFunction | Sequence[Turn] | None = None,
        repo: str = DEFAULT_REPO,
        token: str = DEFAULT_TOKEN,
        requester: str = "maintainer",
        credentials: CheckoutCredentials = "v4",
        agent_user: str = "none",
    ) -> None:
        """`agent_user` is `AMELIA_AGENT_USER` for every run: by default `none`, agents
        run as amelia's own user (the machines tests run on, often as root, have no
        `amelia-agent`); a test of the switch names `<uid>:<gid>`."""
        self.agent_user = agent_user
        self.root = root.resolve()
        self.credentials: CheckoutCredentials = credentials
        self.repo = repo
        self.token = token
        self.requester = requester
        self.origin = self.root / "origin.git"
        self.workspace = self.root / "workspace"
        self.home = self.root / "home"
        self.runner_temp = self.root / "runner-temp"
        self.github = FakeGitHubServer()
        self.model = ScriptedAnthropicServer(script=plan_script() if script is None else script)
        self.agents = plan_agents()
        """The agents of in-process runs (`run_in_process`), unless a run names its own."""
        self.clock = ManualClock()
        """The clock of in-process runs."""
        self._runs = 0
        self._pushes = 0
        self._make_origin()
        self.fresh_checkout()

    # lifecycle -------------------------------------------------------------------------------

    def start(self) -> Self:
        self.github.start()
        self.model.start()
        self.github.add_repo(
            self.repo, default_branch="main", bare_path=self.origin, git_token=self.token
        )
        self.set_permission(self.requester, "write")
        return self

    def stop(self) -> None:
        self.github.stop()
        self.model.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # repositories ----------------------------------------------------------------------------

    def _make_origin(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        shutil.copytree(_sample_origin(), self.origin, symlinks=True)

    @property
    def server_url(self) -> str:
        """`GITHUB_SERVER_URL`: the local GitHub, which also serves the repository's git."""
        return self.github.url

    @property
    def origin_url(self) -> str:
        """The URL actions/checkout gives `origin`: `<server>/<owner>/<name>`."""
        return f"{self.server_url}/{self.repo}"

    def auth_header(self) -> str:
        basic = base64.b64encode(f"x-access-token:{self.token}".encode()).decode()
        return f"AUTHORIZATION: basic {basic}"

    def fresh_checkout(self, credentials: CheckoutCredentials | None = None) -> Path:
        """Clone origin's default branch into the workspace anew, as actions/checkout does,
        persisting the token as `credentials` (default: the harness's) says."""
        if self.workspace.exists():
            shutil.rmtree(self.workspace)
        git(self.root, "clone", "--quiet", str(self.origin), str(self.workspace))
        git(self.workspace, "remote", "set-url", "origin", self.origin_url)
        self.persist_credentials(credentials or self.credentials)
        return self.workspace

    def credentials_files(self) -> list[Path]:
        """The `git-credentials-<uuid>.config` files actions/checkout v6+ left."""
        return sorted(self.runner_temp.glob("git-credentials-*.config"))

    def persist_credentials(self, credentials: CheckoutCredentials) -> None:
        """Leave the token in the workspace the way `credentials` says (see
        `CheckoutCredentials`)."""
        server = urlsplit(self.server_url)
        key = f"http.{server.scheme}://{server.netloc}/.extraheader"
        if credentials == "v4":
            git(self.workspace, "config", "--local", key, self.auth_header())
            return
        if credentials == "none":
            return
        self.runner_temp.mkdir(parents=True, exist_ok=True)
        name = f"git-credentials-{uuid.uuid4()}.config"
        stored = self.runner_temp / name
        # Written like actions/checkout does: a placeholder through git config, then the
        # placeholder replaced in the file.
        placeholder = "AUTHORIZATION: basic ***"
        git(self.root, "config", "--file", str(stored), key, placeholder)
        text = stored.read_text(encoding="utf-8").replace(placeholder, self.auth_header())
        stored.write_text(text, encoding="utf-8")
        live_git_dir, live_file = str(self.workspace / ".git"), str(stored)
        runner_git_dir = "/home/runner/work/app/app/.git"
        runner_file = f"/home/runner/work/_temp/{name}"
        container_git_dir, container_file = "/github/workspace/.git", f"/github/runner_temp/{name}"
        if credentials == "v6":
            runner_git_dir, runner_file = live_git_dir, live_file
        else:
            container_git_dir, container_file = live_git_dir, live_file
        for git_dir, path in ((runner_git_dir, runner_file), (container_git_dir, container_file)):
            git(self.workspace, "config", f"includeIf.gitdir:{git_dir}.path", path)
            git(self.workspace, "config", f"includeIf.gitdir:{git_dir}/worktrees/*.path", path)

    def chown_workspace(self, uid: int = 1001, gid: int = 1001) -> None:
        """Hand the checkout to another user, like the runner's checkout in a container."""
        for path in [self.workspace, *self.workspace.rglob("*")]:
            os.chown(path, uid, gid, follow_symlinks=False)

    def origin_git(self, *args: str) -> str:
        return git(self.origin, *args)

    def origin_branches(self) -> list[str]:
        out = self.origin_git("for-each-ref", "--format=%(refname:short)", "refs/heads")
        return out.split()

    def origin_files(self, branch: str) -> list[str]:
        return self.origin_git("ls-tree", "-r", "--name-only", branch).split()

    def origin_file(self, branch: str, path: str) -> str:
        return self.origin_git("show", f"{branch}:{path}")

    # GitHub state and events -----------------------------------------------------------------

    def add_issue(
        self, title: str, body: str = "", user: str = "octocat", labels: Sequence[str] = ()
    ) -> int:
        return self.github.add_issue(
            self.repo, title=title, body=body, user=user, labels=list(labels)
        )

    def github_text(self) -> str:
        """Everything the local GitHub holds for the repository (pull requests, comments,
        reviews and review comments) as JSON text, to search for what must never be
        posted."""
        with self.github.state.lock:
            numbers = sorted(self.github.state.repository(self.repo).issues)
        held: list[Any] = [self.github.pulls(self.repo)]
        for number in numbers:
            held.append(self.github.comments(self.repo, number))
            held.append(self.github.reviews(self.repo, number))
            held.append(self.github.review_comments(self.repo, number))
        return json.dumps(held)

    def set_permission(self, login: str, permission: str) -> None:
        self.github.set_permission(self.repo, login, permission)

    def _repository(self) -> dict[str, Any]:
        return {"full_name": self.repo, "default_branch": "main"}

    def _issue(self, number: int) -> dict[str, Any]:
        return {"number": number, "title": f"Issue {number}", "body": "", "state": "open"}

    def comment_event(
        self,
        number: int,
        body: str,
        user: str | None = None,
        action: str = "created",
        user_type: str = "User",
    ) -> dict[str, Any]:
        login = user or self.requester
        actor = {"login": login, "type": user_type}
        return {
            "action": action,
            "issue": self._issue(number),
            "comment": {"id": 555_000 + number, "body": body, "user": actor},
            "sender": actor,
            "repository": self._repository(),
        }

    def pull_comment_event(
        self, number: int, body: str, user: str | None = None, action: str = "created"
    ) -> dict[str, Any]:
        """GitHub's `issue_comment` event for `body` on pull request `number`: its `issue`
        carries the `pull_request` links GitHub adds for a pull's conversation."""
        event = self.comment_event(number, body, user, action)
        html = f"{self.server_url}/{self.repo}/pull/{number}"
        event["issue"]["pull_request"] = {
            "url": f"{self.github.url}/repos/{self.repo}/pulls/{number}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "merged_at": None,
        }
        return event

    def review_comment_event(
        self, number: int, body: str, *, reply_to: int, user: str | None = None
    ) -> dict[str, Any]:
        """GitHub's `pull_request_review_comment` `created` event for `body`, posted as a
        reply in the thread that review comment `reply_to` starts on pull `number` (as it
        is stored on the local GitHub)."""
        login = user or self.requester
        actor = {"login": login, "type": "User"}
        (root,) = [c for c in self.github.review_comments(self.repo, number) if c["id"] == reply_to]
        (pull,) = [p for p in self.github.pulls(self.repo) if p["number"] == number]
        comment_id = 777_000 + len(self.github.review_comments(self.repo, number))
        comment = {
            **{key: root[key] for key in ("path", "line", "original_line", "side", "diff_hunk")},
            **{key: root[key] for key in ("commit_id", "original_commit_id")},
            "id": comment_id,
            "node_id": f"PRRC_{comment_id}",
            "pull_request_review_id": comment_id + 1,
            "in_reply_to_id": reply_to,
            "body": body,
            "user": actor,
            "author_association": "MEMBER",
        }
        return {
            "action": "created",
            "comment": comment,
            "pull_request": {
                **self._pull_payload(number, pull["head"]["ref"], pull["head"]["sha"], False),
                "state": "open",
            },
            "sender": actor,
            "repository": self._repository(),
        }

    def label_event(
        self, number: int, label: str = "amelia", user: str | None = None
    ) -> dict[str, Any]:
        actor = {"login": user or self.requester, "type": "User"}
        return {
            "action": "labeled",
            "issue": self._issue(number),
            "label": {"name": label},
            "sender": actor,
            "repository": self._repository(),
        }

    def dispatch_event(self, **inputs: str) -> dict[str, Any]:
        return {
            "inputs": inputs,
            "sender": {"login": self.requester, "type": "User"},
            "repository": self._repository(),
        }

    def push_branch(
        self, branch: str, files: Mapping[str, str], *, onto: str | None = None
    ) -> tuple[str, str]:
        """Push `branch` (main plus `files` appended to or created) to origin, as a
        contributor would: (head sha, diff against main). With `onto` (the branch itself)
        the commit goes on top of that branch instead; without it an existing `branch` is
        replaced (a force-push)."""
        self._pushes += 1
        clone = self.root / f"author-{branch.replace('/', '-')}-{self._pushes}"
        git(self.root, "clone", "--quiet", str(self.origin), str(clone))
        start = f"origin/{onto}" if onto else "HEAD"
        git(clone, "checkout", "--quiet", "-b", branch, start)
        for name, addition in files.items():
            path = clone / name
            path.parent.mkdir(parents=True, exist_ok=True)
            old = path.read_text(encoding="utf-8") if path.exists() else ""
            path.write_text(old + addition, encoding="utf-8")
        git(clone, "add", "--all")
        git(
            clone,
            "-c",
            "user.name=Author",
            "-c",
            "user.email=a@b.invalid",
            "commit",
            "-qm",
            "Change",
        )
        git(clone, "push", "--quiet", "--force", "origin", branch)
        return git(clone, "rev-parse", "HEAD").strip(), git(clone, "diff", "origin/main...HEAD")

    def add_planned_issue(self, title: str, body: str = "", plan: str = DEFAULT_PLAN) -> int:
        """An issue whose plan branch `/amelia plan` would have pushed (its plan file under
        `docs/plans/`), without running the architect: what `/amelia implement` starts from."""
        number = self.add_issue(title, body)
        plan_path = f"docs/plans/2026-01-01-issue-{number}-plan.md"
        self.push_branch(f"amelia/issue-{number}", {plan_path: plan})
        return number

    def commit_files(
        self, branch: str, files: Mapping[str, str], message: str = "Configure"
    ) -> str:
        """Commit `files` (whole contents) on `branch` of origin, as a maintainer would push
        them; returns the new head. The workspace is not updated (see `fresh_checkout`)."""
        self._pushes += 1
        clone = self.root / f"maintainer-{branch.replace('/', '-')}-{self._pushes}"
        git(self.root, "clone", "--quiet", "--branch", branch, str(self.origin), str(clone))
        for name, content in files.items():
            path = clone / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        git(clone, "add", "--all")
        git(
            clone,
            "-c",
            "user.name=Maintainer",
            "-c",
            "user.email=m@b.invalid",
            "commit",
            "-qm",
            message,
        )
        git(clone, "push", "--quiet", "origin", branch)
        head = git(clone, "rev-parse", "HEAD").strip()
        shutil.rmtree(clone)
        return head

    def open_pull(
        self, branch: str, files: Mapping[str, str], draft: bool = False
    ) -> tuple[int, dict[str, Any]]:
        """Push `branch` with `files`, open a pull request for it on the local GitHub:
        (its number, the `pull_request` `opened` event)."""
        sha, diff = self.push_branch(branch, files)
        number = self.github.add_pull(
            self.repo, head=branch, title="Add farewell", draft=draft, diff=diff, head_sha=sha
        )
        event = {
            "action": "opened",
            "number": number,
            "pull_request": self._pull_payload(number, branch, sha, draft),
            "sender": {"login": "contributor", "type": "User"},
            "repository": self._repository(),
        }
        return number, event

    def check_out_pull_merge(self, number: int, branch: str) -> str:
        """Lay out the workspace as actions/checkout does for a `pull_request` event: GitHub's
        `refs/pull/<number>/head` and `/merge` on origin (the merge of `branch` into main),
        the merge fetched as `refs/remotes/pull/<number>/merge` and HEAD detached at it, a
        commit on no branch. Returns the merge commit."""
        self._pushes += 1
        clone = self.root / f"merge-{number}-{self._pushes}"
        git(self.root, "clone", "--quiet", str(self.origin), str(clone))
        git(clone, "checkout", "--quiet", "--detach", "origin/main")
        merge_identity = ["-c", "user.name=GitHub", "-c", "user.email=noreply@github.com"]
        message = f"Merge {branch} into main"
        git(
            clone, *merge_identity, "merge", "--quiet", "--no-ff", "-m", message, f"origin/{branch}"
        )
        heads = [f"origin/{branch}:refs/pull/{number}/head", f"HEAD:refs/pull/{number}/merge"]
        git(clone, "push", "--quiet", "origin", *heads)
        merge = git(clone, "rev-parse", "HEAD").strip()
        shutil.rmtree(clone)
        tracking = f"refs/remotes/pull/{number}/merge"
        git(
            self.workspace,
            "fetch",
            "--quiet",
            str(self.origin),
            f"+refs/pull/{number}/merge:{tracking}",
        )
        git(self.workspace, "checkout", "--quiet", "--detach", tracking)
        return merge

    def _pull_payload(self, number: int, branch: str, sha: str, draft: bool) -> dict[str, Any]:
        return {
            "number": number,
            "title": "Add farewell",
            "body": "Adds farewell.",
            "draft": draft,
            "user": {"login": "contributor", "type": "User"},
            "head": {"ref": branch, "sha": sha},
            "base": {"ref": "main", "sha": self.origin_git("rev-parse", "main").strip()},
        }

    def push_to_pull(
        self, number: int, branch: str, files: Mapping[str, str], *, force: bool = False
    ) -> tuple[str, dict[str, Any]]:
        """Push a commit with `files` to pull `number`'s `branch`: on top of it, or with
        `force` a new history from main in its place. Returns the new head and GitHub's
        `pull_request` `synchronize` event (`before` and `after` name the two heads)."""
        before = self.origin_git("rev-parse", f"refs/heads/{branch}").strip()
        sha, diff = self.push_branch(branch, files, onto=None if force else branch)
        self.github.push_to_pull(self.repo, number, sha, diff)
        event = {
            "action": "synchronize",
            "number": number,
            "before": before,
            "after": sha,
            "pull_request": self._pull_payload(number, branch, sha, False),
            "sender": {"login": "contributor", "type": "User"},
            "repository": self._repository(),
        }
        return sha, event

    def open_fork_pull(
        self,
        files: Mapping[str, str],
        *,
        author: str = "newcomer",
        draft: bool = False,
        body: str = "Adds farewell.",
    ) -> tuple[int, dict[str, Any]]:
        """Open a pull request from the fork `FORK_REPO` that writes `files` (whole) on top
        of main, described by `body`: (its number, the `opened` event, whose payload is the
        same for `pull_request` and `pull_request_target`). As on GitHub, origin holds the
        head's commits only under `refs/pull/<n>/head`, and both the payload and the local
        GitHub name the fork as the head's repository."""
        self._pushes += 1
        fork = self.root / f"fork-{self._pushes}"
        git(self.root, "clone", "--quiet", str(self.origin), str(fork))
        for name, content in files.items():
            path = fork / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        git(fork, "add", "--all")
        git(
            fork,
            "-c",
            "user.name=New",
            "-c",
            "user.email=new@comer.invalid",
            "commit",
            "-qm",
            "Fork",
        )
        sha = git(fork, "rev-parse", "HEAD").strip()
        number = self.github.add_pull(
            self.repo,
            head="patch-1",
            title="Add farewell",
            body=body,
            draft=draft,
            diff=git(fork, "diff", "origin/main...HEAD"),
            head_sha=sha,
            user=author,
            head_repo=FORK_REPO,
        )
        git(fork, "push", "--quiet", "origin", f"HEAD:refs/pull/{number}/head")
        actor = {"login": author, "type": "User"}
        event = {
            "action": "opened",
            "number": number,
            "pull_request": {
                "number": number,
                "title": "Add farewell",
                "body": body,
                "draft": draft,
                "user": actor,
                "author_association": "FIRST_TIME_CONTRIBUTOR",
                "head": {
                    "label": f"{author}:patch-1",
                    "ref": "patch-1",
                    "sha": sha,
                    "repo": {"full_name": FORK_REPO, "fork": True},
                    "user": actor,
                },
                "base": {
                    "label": f"{self.repo.partition('/')[0]}:main",
                    "ref": "main",
                    "sha": self.origin_git("rev-parse", "main").strip(),
                    "repo": {**self._repository(), "fork": False},
                },
            },
            "sender": actor,
            "repository": self._repository(),
        }
        return number, event

    # running ---------------------------------------------------------------------------------

    def environment(
        self,
        event_name: str,
        event_path: Path,
        outputs: Path,
        summary: Path,
        inputs: Mapping[str, str] | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> dict[str, str]:
        """The variables a runner gives a container action, pointed at the local servers.

        Like a runner, it passes every input declared in action.yml (`INPUT_*`), with its
        default unless `inputs` sets it; the token and a model key are set by default."""
        self.home.mkdir(parents=True, exist_ok=True)
        self.runner_temp.mkdir(parents=True, exist_ok=True)
        chosen_inputs = {"github_token": self.token, "anthropic_api_key": HARNESS_MODEL_KEY}
        chosen_inputs.update(inputs or {})
        env = {
            "PATH": process_environment().get("PATH", "/usr/bin:/bin"),
            "LANG": "C.UTF-8",
            "HOME": str(self.home),
            "RUNNER_TEMP": str(self.runner_temp),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_REPOSITORY": self.repo,
            "GITHUB_API_URL": self.github.url,
            "GITHUB_SERVER_URL": self.server_url,
            "GITHUB_RUN_ID": "4242",
            "GITHUB_ACTOR": self.requester,
            "GITHUB_OUTPUT": str(outputs),
            "GITHUB_STEP_SUMMARY": str(summary),
            # The key comes in as the anthropic_api_key input, as on a runner.
            **scripted_claude_environment(self.model.url, self.home / ".claude", api_key=None),
            "AMELIA_DRY_RUN_DIR": str(self.runner_temp / f"dry-run-{self._runs}"),
            "AMELIA_AGENT_USER": self.agent_user,
            # The stand-in answers at once: no pause between writes, which GitHub asks for
            # (about a second each, 3 to 6 s of every run).
            "AMELIA_GITHUB_THROTTLE": "0",
        }
        env.update(runner_inputs(self.token, chosen_inputs))
        env.update(extra or {})
        return env

    def _new_run(
        self,
        event_name: str,
        payload: Mapping[str, Any] | str | bytes,
        inputs: Mapping[str, str] | None,
        env: Mapping[str, str] | None,
    ) -> tuple[Path, dict[str, str]]:
        """A directory for the next run, holding its event payload and the runner's files,
        and the environment a runner gives that run."""
        self._runs += 1
        run_dir = self.root / f"run-{self._runs}"
        run_dir.mkdir()
        event_path = run_dir / "event.json"
        if isinstance(payload, bytes):
            event_path.write_bytes(payload)
        elif isinstance(payload, str):
            event_path.write_text(payload, encoding="utf-8")
        else:
            event_path.write_text(json.dumps(payload), encoding="utf-8")
        outputs, summary = run_dir / "github_output", run_dir / "step_summary"
        outputs.touch()
        summary.touch()
        return run_dir, self.environment(event_name, event_path, outputs, summary, inputs, env)

    def run(
        self,
        event_name: str,
        payload: Mapping[str, Any] | str | bytes,
        *,
        inputs: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        args: Sequence[str] = ("action",),
        launcher: Sequence[str] = (),
        program: Sequence[str] | None = None,
        timeout: float = 240,
        while_running: Callable[[subprocess.Popen[str]], None] | None = None,
    ) -> ActionRun:
        """Run `amelia <args>` (default: `action`) for one event, as a subprocess.

        `program` is the command that is amelia (default: this interpreter's
        `-m amelia.cli`; e.g. the installed `amelia` console script).

        `while_running(process)` runs in a thread meanwhile (e.g. to cancel the job with a
        signal once something happened).

        `inputs` are action inputs by name (github_token, driver, dry_run…; an empty string
        is how GitHub passes an unset input); `env` adds or replaces variables, e.g. to
        remove the token use `inputs={"github_token": ""}`; `launcher` is a command that
        runs amelia's command line (e.g. in a new pid namespace, as pid 1 of a container).
        """
        run_dir, environment = self._new_run(event_name, payload, inputs, env)
        github_before, model_before = len(self.github.requests), len(self.model.requests)
        with subprocess.Popen(
            [*launcher, *(program or (sys.executable, "-m", "amelia.cli")), *args],
            cwd=run_dir,
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as process:
            watcher = None
            if while_running is not None:
                watcher = threading.Thread(target=while_running, args=(process,), daemon=True)
                watcher.start()
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                raise
            if watcher is not None:
                watcher.join(timeout)
        return self._served_run(
            environment, process.returncode, stdout, stderr, github_before, model_before
        )

    def _served_run(
        self,
        environment: Mapping[str, str],
        exit_code: int,
        stdout: str,
        stderr: str,
        github_before: int,
        model_before: int,
    ) -> ActionRun:
        """A finished run against the local servers: what it wrote and what they saw since
        they had seen `github_before` and `model_before` requests."""
        return ActionRun(
            exit_code=exit_code,
            stdout=stdout,
            stderr=stderr,
            outputs=_outputs(environment),
            summary=_summary(environment),
            github_requests=list(self.github.requests)[github_before:],
            model_requests=self.model.requests[model_before:],
            dry_run_dir=Path(environment["AMELIA_DRY_RUN_DIR"]),
        )

    def run_in_process(
        self,
        event_name: str,
        payload: Mapping[str, Any] | str | bytes,
        *,
        inputs: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
        agents: ScriptedAgents | None = None,
        dry_run: bool | None = None,
        workspace: Path | None = None,
    ) -> ActionRun:
        """Run the Action's engine for one event in this process (`run_action` with
        `ActionPorts`), from the environment `run` gives the subprocess: the in-memory
        GitHub over the local server's state, `agents` (default: `self.agents`) on the API
        driver, `self.clock`; `dry_run` and `workspace` as `amelia run` passes them."""
        _, environment = self._new_run(event_name, payload, inputs, env)
        github = self.github.memory(self.repo)
        stdout, stderr = io.StringIO(), io.StringIO()
        scripted = agents or self.agents
        model_before = len(scripted.requests)
        ports = ActionPorts(
            github=github,
            drivers=scripted.drivers(),
            clock=self.clock.clock(),
            stdout=stdout,
            stderr=stderr,
        )
        request = ActionRequest(environ=environment, dry_run=dry_run, workspace=workspace)
        exit_code = run_action(request=request, ports=ports)
        return ActionRun(
            exit_code=exit_code,
            stdout=stdout.getvalue(),
            stderr=stderr.getvalue(),
            outputs=_outputs(environment),
            summary=_summary(environment),
            github_requests=github.requests,
            model_requests=[],
            dry_run_dir=Path(environment["AMELIA_DRY_RUN_DIR"]),
            agent_requests=scripted.requests[model_before:],
        )

    def run_engine(
        self,
        event_name: str,
        payload: Mapping[str, Any] | str | bytes,
        *,
        inputs: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ActionRun:
        """Run the Action's engine for one event in this process with every part real but
        the process: the environment `run` gives the subprocess, PyGithub against the local
        GitHub server, the agents' own drivers (the Claude Code CLI, or pydantic-ai's
        providers) against the scripted model servers through the credential proxy, the
        system clock. While it runs, this process's environment is that environment, which
        the processes the run starts inherit as they do amelia's (the Claude Agent SDK
        copies it for the CLI). For what does not depend on amelia being a process of its
        own (its console script, its exit on a signal, what other processes can read of
        it): a subprocess run costs a second of CPU more, most of it importing amelia and
        its SDKs again."""
        _, environment = self._new_run(event_name, payload, inputs, env)
        github_before, model_before = len(self.github.requests), len(self.model.requests)
        stdout, stderr = io.StringIO(), io.StringIO()
        ports = ActionPorts(stdout=stdout, stderr=stderr)
        with replaced_process_environment(environment):
            exit_code = run_action(request=ActionRequest(environ=environment), ports=ports)
        return self._served_run(
            environment,
            exit_code,
            stdout.getvalue(),
            stderr.getvalue(),
            github_before,
            model_before,
        )

    def run_local(
        self,
        event_name: str,
        payload: Mapping[str, Any],
        *,
        dry_run: bool = True,
        inputs: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ActionRun:
        """`amelia run --event-name … --event-path … --repo <workspace> [--dry-run]`."""
        path = self.root / f"local-event-{self._runs + 1}.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        args = ["run", "--event-name", event_name, "--event-path", str(path)]
        args += ["--repo", str(self.workspace)] + (["--dry-run"] if dry_run else [])
        return self.run(event_name, payload, inputs=inputs, env=env, args=args)
