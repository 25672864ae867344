"""What GitHub refuses in a push that amelia cannot foresee (push protection's GH009, a
ruleset), met by the Action's engine against an origin that refuses like GitHub
(`amelia.testing.github_push_rules`, or a hook in GitHub's words): one attempt, exit 1,
GitHub's words, and the patch saved where an upload step keeps it; it is posted on the
progress comment only when it is short and holds nothing secret."""

from __future__ import annotations

import json

import pytest

from amelia.testing.github_push_rules import pushes_seen, refuse_like_github
from tests.faults.conftest import EngineBench
from tests.faults.refused_pushes import GREET, implement, plan, writes

pytestmark = [pytest.mark.timeout(180)]

AWS_KEY = "AKIA" + "Q3EXAMPLEQ7KEYZZ"
"""Shaped like an AWS access key id, which amelia's search also knows."""
UNKNOWN_SECRET = "acme_live_" + "9f8e7d6c5b4a39281706f5e4d3c2b1a0"
"""A vendor's key that GitHub's push protection knows and amelia's search does not."""


def test_push_protection_ends_the_run_with_githubs_words_and_keeps_the_patch_unposted(
    bench: EngineBench,
) -> None:
    h = bench.harness
    refuse_like_github(h.origin, secrets={"Acme Live API Key": r"acme_live_[0-9a-f]{32}"})
    settings = f'API_KEY = "{UNKNOWN_SECRET}"\n'
    bench.developer = writes({"greeter/shout.py": GREET, "greeter/settings.py": settings})

    run = implement(bench)

    assert run.exit_code == 1, run.stdout
    refused = [line for line in pushes_seen(h.origin) if line.startswith("refused")]
    assert len(refused) == 1  # one attempt
    assert "GH009: Secrets detected! This push failed." in run.summary
    assert "GH009: Secrets detected! This push failed." in run.stdout  # the ::error:: line
    assert "push protection" in run.summary
    patch = h.runner_temp / "amelia-artifacts" / "4242" / "unpushed.patch"
    saved = patch.read_text(encoding="utf-8")
    assert "def shout" in saved and "greeter/settings.py" in saved
    assert UNKNOWN_SECRET not in saved  # the line GitHub pointed at is masked
    assert str(patch) in run.summary and "actions/upload-artifact" in run.summary
    # The host flavour saves under $RUNNER_TEMP: the upload step the summary asks for
    # names that directory.
    assert "`path: ${{ runner.temp }}/amelia-artifacts/`" in run.summary
    assert "_github_home" not in run.summary
    # Nothing posted or summarised holds it.
    assert UNKNOWN_SECRET not in run.summary
    for request in bench.github.requests:
        assert UNKNOWN_SECRET not in json.dumps(request.body)
    (progress,) = bench.progress_comments()
    assert "**Failed**" in progress and "GH009" in progress and "```diff" not in progress
    assert bench.github.pulls(h.repo) == []


def test_another_refusal_posts_the_small_clean_patch_on_the_progress_comment(
    bench: EngineBench,
) -> None:
    h = bench.harness
    plan(bench)
    hook = h.origin / "hooks" / "pre-receive"
    lines = (
        "error: GH013: Repository rule violations found for refs/heads/amelia/issue-1.",
        "",
        "- Cannot update this protected ref.",
    )
    said = "".join(f"echo '{line}' >&2\n" for line in lines)
    hook.write_text(f"#!/bin/sh\n{said}exit 1\n", encoding="utf-8")
    hook.chmod(0o755)
    bench.developer = writes({"greeter/shout.py": GREET})

    run = implement(bench)

    assert run.exit_code == 1, run.stdout
    assert "GH013: Repository rule violations found" in run.summary
    (progress,) = bench.progress_comments()
    assert "**Failed**" in progress and "```diff" in progress and "+def shout" in progress
    assert "git am" in progress


def test_a_patch_with_a_credential_shape_is_not_posted(bench: EngineBench) -> None:
    h = bench.harness
    plan(bench)
    hook = h.origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'error: GH013: Repository rule violations' >&2\nexit 1\n")
    hook.chmod(0o755)
    bench.developer = writes({"greeter/keys.py": f'KEY = "{AWS_KEY}"\n'})

    run = implement(bench)

    assert run.exit_code == 1, run.stdout
    (progress,) = bench.progress_comments()
    assert "```diff" not in progress and AWS_KEY not in progress
