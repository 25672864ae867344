"""What GitHub would refuse in a push, foreseen by the Action's engine against an origin
that refuses like GitHub (`amelia.testing.github_push_rules`: a hook answering in GitHub's
own words).

A workflow file with a token that may not change workflows (the job's token never may; a
classic personal access token says so in `X-OAuth-Scopes`), and a file over 100 MB, are
held back before the push, the rest is pushed, and the draft, the progress comment and the
review say what was held back, with its change as a patch. When amelia could not tell (an
App's token), GitHub's workflow refusal is foreseen too: the workflow files are taken out
and the rest is pushed once more. Fix mode and a budget stop take the same path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.github.markers import BODY_BEGIN
from amelia.testing.github_push_rules import pushes_seen, refuse_like_github
from tests.faults.conftest import APPROVAL, EngineBench
from tests.faults.refused_pushes import BRANCH, GREET, implement, plan, pull, writes
from tests.git_helpers import git

pytestmark = [pytest.mark.timeout(180)]

PLAN_PATH = "docs/plans/2026-01-01-issue-1-plan.md"
WORKFLOW = ".github/workflows/ci.yml"
WORKFLOW_TEXT = (
    "name: ci\non: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    "    steps:\n      - uses: actions/checkout@v4\n      - run: python -m pytest\n"
)
BIG = "data/model.bin"
BIG_BYTES = 101 * 1024 * 1024
GITHUB_TOKEN_SHAPE = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GOOGLE_KEY_SHAPE = "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q"
PRIVATE_KEY = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n"
    "-----END OPENSSH PRIVATE KEY-----\n"
)


def _held_back_dir(bench: EngineBench) -> Path:
    return bench.harness.runner_temp / "amelia-artifacts" / "4242" / "held-back"


def _applies(bench: EngineBench, patch: str, path: str, expected: str) -> None:
    """`patch` applied with `git apply` to a clone of the pushed branch gives `expected`."""
    h = bench.harness
    clone = h.root / f"apply-{len(list(h.root.glob('apply-*')))}"
    git(h.root, "clone", "--quiet", "--branch", BRANCH, str(h.origin), str(clone))
    (clone / "held.patch").write_text(patch, encoding="utf-8")
    git(clone, "apply", "held.patch")
    assert (clone / path).read_text(encoding="utf-8") == expected


def _shown_patch(text: str) -> str:
    """The patch inside the held-back block's collapsed `diff` fence."""
    start = text.index("```diff\n") + len("```diff\n")
    return text[start : text.index("\n```", start)] + "\n"


# Workflow files ------------------------------------------------------------------------------


def test_a_workflow_file_is_held_back_before_the_push_with_the_jobs_token(
    bench: EngineBench,
) -> None:
    h = bench.harness
    refuse_like_github(h.origin, workflows="app")
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench, {"review_event": "AUTO"})

    assert run.exit_code == 0, run.stdout
    assert run.outputs["conclusion"] == "success"
    # Foreseen: the only push with the work carried no workflow file; GitHub refused none.
    assert [line for line in pushes_seen(h.origin) if "refused" in line] == []
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    assert WORKFLOW not in h.origin_files(BRANCH)
    opened = pull(bench)
    assert opened["draft"] is True
    body = opened["body"]
    assert f"`{WORKFLOW}`" in body and "`workflows` permission" in body
    assert "amelia pushed with the job's `GITHUB_TOKEN`, which never has it" in body
    assert "<details>" in body and "git apply" in body
    # The developer said "Wrote greeter/shout.py, .github/workflows/ci.yml": no half line.
    assert "| `greeter/shout.py` | +2 −0 | new file |" in body
    _applies(bench, _shown_patch(body), WORKFLOW, WORKFLOW_TEXT)
    (progress,) = bench.progress_comments()
    assert "**Done**" in progress and f"`{WORKFLOW}`" in progress
    _applies(bench, _shown_patch(progress), WORKFLOW, WORKFLOW_TEXT)
    # The reviewer saw the workflow file; its approval is posted as a comment, never an
    # approval, and says what could not be pushed.
    (review,) = bench.github.reviews(h.repo, opened["number"])
    assert review["state"] == "COMMENTED"
    assert f"Not pushed: `{WORKFLOW}`" in review["body"]
    # Nowhere is the change called approved: a workflow auto-merging on
    # `verdict == 'approved'` must not merge it.
    assert run.outputs["verdict"] == "not_all_pushed"
    assert "## amelia review: ⚠️ Not all pushed" in review["body"]
    assert "Approved" not in review["body"].splitlines()[1]
    assert "Latest automated verdict: **not_all_pushed**" in body
    assert "verdict: **approved**" not in body
    assert "| `verdict` | `not_all_pushed` |" in run.summary
    saved = _held_back_dir(bench)
    assert (saved / "files" / WORKFLOW).read_text(encoding="utf-8") == WORKFLOW_TEXT
    _applies(
        bench, (saved / "held-back.patch").read_text(encoding="utf-8"), WORKFLOW, WORKFLOW_TEXT
    )
    assert "### Not pushed" in run.summary
    assert "`path: ${{ runner.temp }}/amelia-artifacts/`" in run.summary
    assert "_github_home" not in run.summary


def test_the_reviewer_sees_the_held_back_workflow_file(bench: EngineBench) -> None:
    refuse_like_github(bench.harness.origin, workflows="app")
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench)

    assert run.exit_code == 0, run.stdout
    (prompt,) = bench.reviewer_prompts
    assert WORKFLOW in prompt and "python -m pytest" in prompt and "shout" in prompt


def test_a_classic_token_with_the_workflow_scope_pushes_workflow_files(
    bench: EngineBench,
) -> None:
    h = bench.harness
    refuse_like_github(h.origin, workflows=None)
    bench.github.oauth_scopes = ("repo", "workflow")
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench, {"review_event": "AUTO"})

    assert run.exit_code == 0, run.stdout
    assert h.origin_file(BRANCH, WORKFLOW) == WORKFLOW_TEXT
    assert "Not pushed" not in pull(bench)["body"]
    (review,) = bench.github.reviews(h.repo, pull(bench)["number"])
    assert review["state"] == "APPROVED"


def test_a_classic_token_without_the_workflow_scope_holds_them_back(bench: EngineBench) -> None:
    h = bench.harness
    refuse_like_github(h.origin, workflows="pat")
    bench.github.oauth_scopes = ("repo",)
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench)

    assert run.exit_code == 0, run.stdout
    assert [line for line in pushes_seen(h.origin) if "refused" in line] == []
    assert WORKFLOW not in h.origin_files(BRANCH)
    body = pull(bench)["body"]
    assert f"`{WORKFLOW}`" in body
    assert "a personal access token (classic) or OAuth token whose scopes (`repo`) lack" in body
    assert "GITHUB_TOKEN" not in body


def test_a_token_amelia_cannot_read_is_tried_and_githubs_refusal_is_foreseen(
    bench: EngineBench,
) -> None:
    """An App's installation token shows no permissions: amelia pushes the workflow file,
    GitHub refuses it in its words, and the rest goes in one more push."""
    h = bench.harness
    bench.github.token_user.login = "acme-builder[bot]"
    refuse_like_github(h.origin, workflows="app")
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench)

    assert run.exit_code == 0, run.stdout
    seen = pushes_seen(h.origin)
    refused = [line for line in seen if line.startswith("refused")]
    assert refused == [
        f"refused refs/heads/{BRANCH} refusing to allow a GitHub App to create or update "
        f"workflow `{WORKFLOW}` without `workflows` permission"
    ]
    assert seen[-1] == f"accepted refs/heads/{BRANCH}"
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    assert WORKFLOW not in h.origin_files(BRANCH)
    log = h.origin_git("log", "-1", "--format=%an%n%B", BRANCH)
    assert log.startswith("amelia[bot]\nImplement issue #1")
    body = pull(bench)["body"]
    assert "> refusing to allow a GitHub App to create or update workflow" in body
    assert "GitHub refused it from the token amelia pushed with (a GitHub App's)" in body
    assert "GITHUB_TOKEN" not in body
    _applies(bench, _shown_patch(body), WORKFLOW, WORKFLOW_TEXT)


def _saved_files(bench: EngineBench) -> list[Path]:
    """Every file amelia saved for an upload step to keep."""
    root = bench.harness.runner_temp / "amelia-artifacts"
    return [path for path in root.rglob("*") if path.is_file()]


def test_credentials_in_a_held_back_file_are_masked_in_everything_saved(
    bench: EngineBench,
) -> None:
    """An artifact of a public repository's run can be downloaded by anyone signed in: a
    held-back workflow file is saved with every credential-shaped string masked."""
    h = bench.harness
    refuse_like_github(h.origin, workflows="app")
    workflow = (
        f"name: ci\non: push\nenv:\n  TOKEN: {GITHUB_TOKEN_SHAPE}\n"
        f"  MAPS_KEY: {GOOGLE_KEY_SHAPE}\njobs: {{}}\n"
    )
    bench.developer = writes(
        {"greeter/shout.py": GREET, WORKFLOW: workflow, ".github/workflows/key.txt": PRIVATE_KEY}
    )

    run = implement(bench)

    assert run.exit_code == 0, run.stdout
    assert WORKFLOW not in h.origin_files(BRANCH)
    saved = _saved_files(bench)
    assert saved, "nothing was saved"
    for path in saved:
        data = path.read_bytes()
        for planted in (GITHUB_TOKEN_SHAPE, GOOGLE_KEY_SHAPE, "b3BlbnNzaC1rZXktdjEAAAAABG5v"):
            assert planted.encode() not in data, path
    kept = (_held_back_dir(bench) / "files" / WORKFLOW).read_text(encoding="utf-8")
    assert "name: ci" in kept and "MAPS_KEY: ***" in kept and "TOKEN: ***" in kept
    # The workflow file itself stays in the checkout as the agents left it.
    assert (h.workspace / WORKFLOW).read_text(encoding="utf-8") == workflow
    for text in (run.summary, *(json.dumps(r.body) for r in bench.github.requests)):
        assert GITHUB_TOKEN_SHAPE not in text and GOOGLE_KEY_SHAPE not in text
    assert "credentials masked" in pull(bench)["body"]


def test_credentials_in_unpushed_commits_are_masked_in_everything_saved(
    bench: EngineBench,
) -> None:
    """A push refused by a ruleset (GH013) saves the commits: token-shaped strings in them
    are masked as the lines GitHub's push protection names are after a GH009."""
    h = bench.harness
    plan(bench)
    hook = h.origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\necho 'error: GH013: Repository rule violations found.' >&2\nexit 1\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    settings = f'TOKEN = "{GITHUB_TOKEN_SHAPE}"\nMAPS_KEY = "{GOOGLE_KEY_SHAPE}"\n'
    bench.developer = writes({"greeter/shout.py": GREET, "greeter/settings.py": settings})

    run = implement(bench)

    assert run.exit_code == 1, run.stdout
    saved = _saved_files(bench)
    assert any(path.name == "unpushed.patch" for path in saved)
    assert any(path.name == "settings.py" for path in saved)
    for path in saved:
        data = path.read_bytes()
        assert GITHUB_TOKEN_SHAPE.encode() not in data, path
        assert GOOGLE_KEY_SHAPE.encode() not in data, path
    patch = (bench.harness.runner_temp / "amelia-artifacts" / "4242" / "unpushed.patch").read_text()
    assert "+def shout" in patch and 'MAPS_KEY = "***"' in patch
    assert GITHUB_TOKEN_SHAPE not in run.summary and GOOGLE_KEY_SHAPE not in run.summary
    (progress,) = bench.progress_comments()
    assert "```diff" not in progress


def test_when_the_push_of_the_rest_is_refused_too_nothing_says_it_was_pushed(
    bench: EngineBench,
) -> None:
    h = bench.harness
    plan(bench)
    refuse_like_github(h.origin, workflows="app")
    hook = h.origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\necho 'error: GH013: Repository rule violations found for "
        "refs/heads/amelia/issue-1.' >&2\necho '- Cannot update this protected ref.' >&2\n"
        "exit 1\n",
        encoding="utf-8",
    )
    hook.chmod(0o755)
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT})

    run = implement(bench)

    assert run.exit_code == 1, run.stdout
    assert "greeter/shout.py" not in h.origin_files(BRANCH)
    (progress,) = bench.progress_comments()
    assert "**Failed**" in progress and f"`{WORKFLOW}`" in progress
    assert "pushed the rest" not in progress
    assert "the push of the rest failed as well" in progress
    assert "pushed the rest" not in run.summary
    assert "covers.." not in progress


# Files over GitHub's size limit ---------------------------------------------------------------


def test_a_file_over_100_mb_is_held_back(bench: EngineBench) -> None:
    h = bench.harness
    refuse_like_github(h.origin)
    bench.developer = writes({"greeter/shout.py": GREET, BIG: BIG_BYTES})

    run = implement(bench, {"review_event": "AUTO"})

    assert run.exit_code == 0, run.stdout
    assert [line for line in pushes_seen(h.origin) if "refused" in line] == []
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    assert BIG not in h.origin_files(BRANCH)
    body = pull(bench)["body"]
    assert (
        f"`{BIG}`" in body
        and "101.00 MiB, 105,906,176 bytes" in body
        and "too large to show" in body
    )
    saved = _held_back_dir(bench) / "files" / BIG
    assert saved.stat().st_size == BIG_BYTES
    assert str(saved) in body
    assert len(body) < 65_536
    (review,) = bench.github.reviews(h.repo, pull(bench)["number"])
    assert review["state"] == "COMMENTED" and f"`{BIG}`" in review["body"]


def test_a_server_with_a_lower_size_limit_is_foreseen_by_its_gh001(bench: EngineBench) -> None:
    """A GitHub Enterprise Server may refuse smaller files: GitHub's GH001 names them, they
    are held back and the rest goes in one more push."""
    h = bench.harness
    refuse_like_github(h.origin, max_file_bytes=4096)
    bench.developer = writes({"greeter/shout.py": GREET, "data/table.csv": "a,b\n" * 2048})

    run = implement(bench)

    assert run.exit_code == 0, run.stdout
    seen = pushes_seen(h.origin)
    assert [line.split(" ", 2)[2] for line in seen if line.startswith("refused")] == [
        "pre-receive hook declined"
    ]
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    assert "data/table.csv" not in h.origin_files(BRANCH)
    body = pull(bench)["body"]
    assert "`data/table.csv`: too large for this server (8,192 bytes;" in body
    assert "100 MiB" not in body
    assert "> File data/table.csv is 0.01 MB; this exceeds GitHub's file size limit" in body


# The same path in fix mode and after a budget stop ------------------------------------------


def test_fix_holds_back_a_workflow_file_and_never_approves(bench: EngineBench) -> None:
    h = bench.harness
    number, _event = h.open_pull(BRANCH, {PLAN_PATH: "# Plan\n"}, draft=True)
    h.github.add_review_comment(
        h.repo, number, path=PLAN_PATH, line=1, body="Please add CI", user="maintainer"
    )
    bench.developer = writes({WORKFLOW: WORKFLOW_TEXT, "greeter/shout.py": GREET})
    refuse_like_github(h.origin, workflows="app")
    h.fresh_checkout()
    extra = {"INPUT_REVIEW_EVENT": "AUTO"}

    run = bench.run("issue_comment", h.pull_comment_event(number, "/amelia fix"), extra)

    assert run.exit_code == 0, run.stdout
    assert [line for line in pushes_seen(h.origin) if "refused" in line] == []
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    assert WORKFLOW not in h.origin_files(BRANCH)
    review = bench.github.reviews(h.repo, number)[-1]
    assert review["state"] == "COMMENTED" and f"Not pushed: `{WORKFLOW}`" in review["body"]
    assert run.outputs["verdict"] == "not_all_pushed"
    assert "## amelia review: ⚠️ Not all pushed" in review["body"]
    (progress,) = bench.progress_comments(number)
    _applies(bench, _shown_patch(progress), WORKFLOW, WORKFLOW_TEXT)


def test_a_budget_stop_with_work_pushed_names_the_held_back_file(bench: EngineBench) -> None:
    h = bench.harness
    refuse_like_github(h.origin, workflows="app")
    bench.developer = writes({"greeter/shout.py": GREET, WORKFLOW: WORKFLOW_TEXT}, cost=1.0)

    run = implement(bench, {"max_cost_usd": "0.5"})

    assert run.exit_code == 1, run.stdout
    assert "budget of $0.5 reached" in run.stdout
    assert bench.reviewer_prompts == []
    assert h.origin_file(BRANCH, "greeter/shout.py") == GREET
    body = pull(bench)["body"]
    assert body.startswith(BODY_BEGIN) and "the reviewer has not reviewed" in body
    assert f"`{WORKFLOW}`" in body
    _applies(bench, _shown_patch(body), WORKFLOW, WORKFLOW_TEXT)
    (progress,) = bench.progress_comments()
    assert "**Failed**" in progress and f"`{WORKFLOW}`" in progress


def test_nothing_is_held_back_without_a_reason(bench: EngineBench) -> None:
    refuse_like_github(bench.harness.origin, workflows="app")
    bench.developer = writes({"greeter/shout.py": GREET})
    bench.verdict = APPROVAL

    run = implement(bench, {"review_event": "AUTO"})

    assert run.exit_code == 0, run.stdout
    assert "Not pushed" not in pull(bench)["body"]
    (review,) = bench.github.reviews(bench.harness.repo, pull(bench)["number"])
    assert review["state"] == "APPROVED"
    assert "## amelia review: ✅ Approved" in review["body"]
    assert run.outputs["verdict"] == "approved"
    assert "Latest automated verdict: **approved**" in pull(bench)["body"]
    assert not _held_back_dir(bench).exists()
