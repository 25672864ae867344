"""Real repositories and real runner states: each test builds a repository with one trait
that public projects have (an ignored `docs/`, a depth-1 checkout behind its default
branch, a pull too big for GitHub's diff, names and contents that are not UTF-8, a branch
rule that declines pushes, a pull request a person described, a clone on someone's own
machine) and runs the Action's engine on it, asserting on what lands on origin and GitHub.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from amelia.action.engine import ActionRequest
from amelia.drivers.base import AgenticMessage
from amelia.git import BOT_NAME, noreply_address
from amelia.testing.action_harness import ActionHarness
from amelia.testing.scripted_driver import RecordedCall, result
from tests.faults.conftest import EngineBench, EngineRun
from tests.git_helpers import IDENTITY, git

pytestmark = [pytest.mark.timeout(120)]

BRANCH = "amelia/issue-1"
E_ACUTE = "\u00e9.txt"
BODY_BEGIN, BODY_END = "<!-- amelia:begin -->", "<!-- amelia:end -->"
"""amelia's part of a pull request's description lies between these."""
LATIN1_NAME = os.fsdecode(b"caf\xe9.txt")
"""`café.txt` with its name in Latin-1: not valid UTF-8."""


def _maintainer(h: ActionHarness) -> Path:
    """A clone of origin to push from, as a maintainer would."""
    clone = h.root / "maintainer"
    if not clone.exists():
        git(h.root, "clone", "--quiet", str(h.origin), str(clone))
    git(clone, "fetch", "--quiet", "origin")
    return clone


def _push(
    h: ActionHarness,
    files: Mapping[str, bytes],
    *,
    branch: str = "main",
    start: str = "origin/main",
    empty_commits: int = 0,
) -> str:
    """Commit `files` (and `empty_commits` more commits) on `branch` of origin; its diff
    against main as GitHub shows it (git's default quoting of names)."""
    clone = _maintainer(h)
    git(clone, "checkout", "--quiet", "-B", branch, start)
    for name, content in files.items():
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_bytes(content)
    if files:
        git(clone, "add", "--all")
        git(clone, *IDENTITY, "commit", "--quiet", "-m", f"Change {len(files)} files")
    for index in range(empty_commits):
        git(clone, *IDENTITY, "commit", "--quiet", "--allow-empty", "-m", f"Work {index}")
    git(clone, "push", "--quiet", "origin", f"{branch}:{branch}")
    shown = subprocess.run(
        ["git", "diff", "origin/main...HEAD"], cwd=clone, capture_output=True, check=True
    )
    return shown.stdout.decode("utf-8", "replace")


def _plan(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")
    planned = bench.run_plan()
    assert planned.exit_code == 0, planned.stdout


def _implement(bench: EngineBench) -> EngineRun:
    return bench.run("issue_comment", bench.harness.comment_event(1, "/amelia implement"))


def _pull_event(h: ActionHarness, number: int, branch: str) -> dict[str, Any]:
    actor = {"login": "contributor", "type": "User"}
    pull = {
        "number": number,
        "title": "Change",
        "body": "",
        "draft": False,
        "user": actor,
        "head": {"ref": branch, "sha": ""},
        "base": {"ref": "main", "sha": ""},
    }
    repository = {"full_name": h.repo, "default_branch": "main"}
    return {
        "action": "opened",
        "number": number,
        "pull_request": pull,
        "sender": actor,
        "repository": repository,
    }


def _finding(path: str, line: int) -> dict[str, Any]:
    return {
        "verdict": "changes_requested",
        "severity": "minor",
        "summary": "One nit",
        "comments": [{"path": path, "line": line, "severity": "minor", "body": "Say why"}],
    }


# A plan directory the repository ignores ------------------------------------------------


def test_a_plan_under_an_ignored_docs_folder_is_committed_and_the_log_says_so(
    bench: EngineBench,
) -> None:
    h = bench.harness
    _push(h, {".gitignore": b"/docs/\n"})
    h.fresh_checkout()
    h.add_issue("Add a farewell", "Say goodbye too.")

    run = bench.run_plan()

    assert run.exit_code == 0, run.stdout
    plan_path = run.outputs["plan_path"]
    assert plan_path.startswith("docs/plans/")
    assert "**Goal:**" in h.origin_file(BRANCH, plan_path)
    assert f"{plan_path} is ignored by the repository's .gitignore" in run.stdout
    assert "git add -f" in run.stdout


# A depth-1 checkout whose default branch moved on since the plan ------------------------


def test_implement_in_a_depth_one_checkout_deepens_only_as_far_as_the_merge_base(
    bench: EngineBench,
) -> None:
    h = bench.harness
    _push(h, {}, empty_commits=40)  # a history longer than the first deepening step
    _plan(bench)
    _push(h, {"CHANGELOG.md": b"moved on\n"}, empty_commits=2)  # main moves on
    shutil.rmtree(h.workspace)  # actions/checkout's default: fetch-depth 1
    git(h.root, "clone", "--quiet", "--depth", "1", f"file://{h.origin}", str(h.workspace))

    run = _implement(bench)

    assert run.exit_code == 0, run.stdout
    (pull,) = bench.github.pulls(h.repo)
    assert pull["head"]["ref"] == BRANCH and pull["base"]["ref"] == "main"
    assert "greeter/farewell.py" in h.origin_files(BRANCH)
    assert bench.github.reviews(h.repo, pull["number"])
    # Deepened, not unshallowed: the 40 older commits of main were never needed.
    assert git(h.workspace, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert int(git(h.workspace, "rev-list", "--count", "origin/main")) < 40


# A pull request whose diff GitHub will not serve (406 too_large) --------------------------


def test_a_pull_too_large_for_githubs_diff_is_reviewed_on_the_local_diff(
    bench: EngineBench,
) -> None:
    h = bench.harness
    big = "".join(f"row {index}\n" for index in range(20_001)).encode()
    diff = _push(h, {"data/big.txt": big}, branch="bulk")
    number = bench.github.add_pull(h.repo, head="bulk", diff=diff)
    bench.verdict = _finding("data/big.txt", 5)

    run = bench.run("pull_request", _pull_event(h, number, "bulk"))

    assert run.exit_code == 0, run.stdout
    assert run.requests_to("GET", rf"/repos/octo/app/pulls/{number}")  # GitHub was asked
    (review,) = bench.github.reviews(h.repo, number)
    assert [(c["path"], c["line"]) for c in review["comments"]] == [("data/big.txt", 5)]
    assert "Sorry, the diff exceeded the maximum number of lines (20000)" in run.stdout


# Names and contents that are not UTF-8 ----------------------------------------------------


def test_a_pull_adding_a_file_named_in_latin1_is_reviewed_with_inline_findings(
    bench: EngineBench,
) -> None:
    h = bench.harness
    files = {LATIN1_NAME: b"cr\xe8me br\xfbl\xe9e\n", E_ACUTE: "caf\u00e9\n".encode()}
    diff = _push(h, files, branch="accents")
    assert '"b/\\303\\251.txt"' in diff  # GitHub's diff quotes the name as git does
    number = bench.github.add_pull(h.repo, head="accents", diff=diff)
    bench.verdict = _finding(E_ACUTE, 1)

    run = bench.run("pull_request", _pull_event(h, number, "accents"))

    assert run.exit_code == 0, run.stdout
    (review,) = bench.github.reviews(h.repo, number)
    assert [(c["path"], c["line"]) for c in review["comments"]] == [(E_ACUTE, 1)]
    assert "1 inline, 0 listed below" in review["body"]


def _edit_latin1_files(call: RecordedCall) -> list[AgenticMessage]:
    assert call.cwd is not None
    legacy = Path(call.cwd) / "legacy.txt"
    legacy.write_bytes(legacy.read_bytes() + b"cr\xe8me\n")
    (Path(call.cwd) / E_ACUTE).write_text("un caf\u00e9\n", encoding="utf-8")
    return [result("Edited legacy.txt and added é.txt")]


def test_implement_of_a_change_to_a_latin1_file_posts_its_review_inline(
    bench: EngineBench,
) -> None:
    h = bench.harness
    _push(h, {"legacy.txt": b"caf\xe9\n"})
    h.fresh_checkout()
    _plan(bench)
    h.fresh_checkout()
    bench.developer = _edit_latin1_files
    bench.verdict = _finding(E_ACUTE, 1)

    one_round = {"INPUT_MAX_REVIEW_ITERATIONS": "1"}
    run = bench.run("issue_comment", h.comment_event(1, "/amelia implement"), one_round)

    assert run.exit_code == 0, run.stdout
    assert h.origin_git("show", f"{BRANCH}:legacy.txt") == "caf\ufffd\ncr\ufffdme\n"
    (pull,) = bench.github.pulls(h.repo)
    (review,) = bench.github.reviews(h.repo, pull["number"])
    assert [(c["path"], c["line"]) for c in review["comments"]] == [(E_ACUTE, 1)]


# A push that a branch rule declines -------------------------------------------------------

GH013 = (
    "error: GH013: Repository rule violations found for refs/heads/amelia/issue-1.",
    "Review all repository rules at https://github.com/octo/app/rules?ref=refs%2Fheads%2Famelia%2Fissue-1",
    "",
    "- Cannot create ref due to creations being restricted.",
    "",
)
GH006 = (
    "error: GH006: Protected branch update failed for refs/heads/amelia/issue-1.",
    "error: Changes must be made through a pull request. (protected branch hook declined)",
)


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        (GH013, "Cannot create ref due to creations being restricted"),
        (GH006, "protected branch hook declined"),
    ],
    ids=["GH013-ruleset", "GH006-protected-branch"],
)
def test_a_declined_push_names_githubs_words_and_the_fix_and_keeps_the_plan(
    bench: EngineBench, said: tuple[str, ...], rule: str
) -> None:
    h = bench.harness
    calls = h.root / "hook-calls"
    hook = h.origin / "hooks" / "pre-receive"
    lines = "".join(f"echo '{line}' >&2\n" for line in said)
    hook.write_text(f'#!/bin/sh\necho push >> "{calls}"\n{lines}exit 1\n', encoding="utf-8")
    hook.chmod(0o755)
    h.add_issue("Add a farewell", "Say goodbye too.")

    run = bench.run_plan()

    assert run.exit_code == 1, run.stdout
    assert calls.read_text(encoding="utf-8").count("push") == 1  # not retried, not rebased
    assert "push of amelia/issue-1 was declined by origin:" in run.summary
    assert said[0].removeprefix("error: ") in run.summary and rule in run.summary
    assert "bypass list" in run.summary and "branch_prefix" in run.summary
    assert "couldn't find remote ref" not in run.summary
    (progress,) = bench.progress_comments()
    assert rule in progress and "branch_prefix" in progress
    patch = h.runner_temp / "amelia-artifacts" / "4242" / "unpushed.patch"
    assert "**Goal:**" in patch.read_text(encoding="utf-8")
    assert h.origin_branches() == ["main"]


# A pull request a person already described ------------------------------------------------


def test_implement_keeps_what_a_person_wrote_in_the_pull_request_description(
    bench: EngineBench,
) -> None:
    h = bench.harness
    _plan(bench)
    human = (
        "Context from the maintainer: keep the API stable.\n\n"
        f"{BODY_BEGIN}\nan older amelia summary\n{BODY_END}\n\n"
        "- [ ] checked on staging\n"
    )
    number = bench.github.add_pull(h.repo, head=BRANCH, body=human, draft=True)
    h.fresh_checkout()

    run = _implement(bench)

    assert run.exit_code == 0, run.stdout
    assert run.outputs["pr_number"] == str(number)
    (pull,) = bench.github.pulls(h.repo)
    body = pull["body"]
    assert body.startswith("Context from the maintainer: keep the API stable.\n\n")
    assert body.endswith("\n\n- [ ] checked on staging\n")
    assert body.count(BODY_BEGIN) == 1 and body.count(BODY_END) == 1
    assert "an older amelia summary" not in body
    assert "Closes #1" in body.split(BODY_BEGIN)[1]


# Reproducing a run on one's own clone -----------------------------------------------------


def _git_config(h: ActionHarness) -> tuple[str, str]:
    """The workspace's local config and the global config HOME holds, as git lists them."""
    env = {**os.environ, "HOME": str(h.home), "XDG_CONFIG_HOME": str(h.home / ".config")}

    def listed(*args: str) -> str:
        done = subprocess.run(
            ["git", "config", *args, "--list"], cwd=h.workspace, env=env, capture_output=True
        )
        return done.stdout.decode()

    return listed("--local"), listed("--global")


def test_a_local_dry_run_leaves_the_users_git_configuration_alone(
    bench: EngineBench,
) -> None:
    h = bench.harness
    h.add_issue("Add a farewell", "Say goodbye too.")
    before = _git_config(h)

    run = bench.run(
        "issue_comment",
        h.comment_event(1, "/amelia plan"),
        extra={"GITHUB_ACTIONS": "", "XDG_CONFIG_HOME": str(h.home / ".config")},
        request=ActionRequest(workspace=h.workspace, dry_run=True),
    )

    assert run.exit_code == 0, run.stdout
    assert run.outputs["conclusion"] == "dry_run"
    assert _git_config(h) == before
    assert "amelia" not in "".join(before) and not (h.home / ".gitconfig").exists()
    # The plan is committed locally all the same, by the bot, named on that one command.
    author = git(h.workspace, "log", "-1", "--format=%an <%ae>|%cn", BRANCH).strip()
    bot = noreply_address(BOT_NAME, server_url=h.server_url)
    assert author == f"{BOT_NAME} <{bot}>|{BOT_NAME}"
    assert h.origin_branches() == ["main"]


# Configuration a run cannot work with --------------------------------------------------------

UNWORKABLE = {
    "branch-prefix-lock": ("INPUT_BRANCH_PREFIX", "x.lock/", "end with '.lock'"),
    "branch-prefix-dot-part": ("INPUT_BRANCH_PREFIX", "a/.b/", "start with '.'"),
    "plan-dir-upper-case-git": ("INPUT_PLAN_DIR", ".GIT/x", "no .git"),
    "timeout-nan": ("INPUT_TIMEOUT_MINUTES", "nan", "Input should be a finite number"),
}


@pytest.mark.parametrize("case", sorted(UNWORKABLE))
def test_configuration_that_cannot_work_stops_the_run_before_anything_is_posted(
    bench: EngineBench, case: str
) -> None:
    variable, value, problem = UNWORKABLE[case]
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")

    run = bench.run_plan(extra={variable: value})

    assert run.exit_code == 2, run.stdout
    (error,) = [line for line in run.stdout.splitlines() if line.startswith("::error::")]
    assert f"{variable}: " in error and problem in error
    assert run.github_requests == [] and bench.architect_calls == 0
    assert bench.harness.origin_branches() == ["main"]


def test_plan_dir_dot_saves_plans_at_the_top_without_dot_slash(bench: EngineBench) -> None:
    bench.harness.add_issue("Add a farewell", "Say goodbye too.")

    run = bench.run_plan(extra={"INPUT_PLAN_DIR": "."})

    assert run.exit_code == 0, run.stdout
    plan_path = run.outputs["plan_path"]
    assert plan_path.endswith("-issue-1-add-a-farewell.md") and "/" not in plan_path
    assert "**Goal:**" in bench.harness.origin_file(BRANCH, plan_path)
    (progress,) = bench.progress_comments()
    assert f"/{plan_path})" in progress and "/./" not in progress
