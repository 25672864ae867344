"""On GitHub Enterprise Server nothing amelia writes names github.com: links come from
`GITHUB_SERVER_URL`, the API from `GITHUB_API_URL`, and the bot's and co-authors' addresses
are `<login>@users.noreply.<host>`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, git, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(400)]

GHES = "https://ghe.example.com"


def _reach_the_server(harness: ActionHarness) -> None:
    """ghe.example.com resolves nowhere here: route its git traffic to the local GitHub in
    the checkout's config, as the runner's DNS would."""
    git(harness.workspace, "config", "--local", f"url.{harness.server_url}/.insteadOf", f"{GHES}/")


def test_a_plan_and_its_implementation_never_name_github_com(tmp_path: Path) -> None:
    root = tmp_path / "action"
    farewell = str(root / "workspace" / "greeter" / "farewell.py")
    verdict = {"verdict": "approved", "severity": "none", "summary": "Fine", "comments": []}
    roles: dict[str, list[Turn]] = {
        "developer": [
            [tool_use("Write", {"file_path": farewell, "content": "x = 1\n"})],
            [text("Done")],
        ],
        "reviewer": [[tool_use("StructuredOutput", verdict)], [text("ok")]],
    }
    with ActionHarness(root, script=plan_script(roles=roles)) as harness:
        harness.github.web_url = GHES
        server = {"GITHUB_SERVER_URL": GHES}
        number = harness.add_issue("Add a farewell", "Say goodbye too.")
        _reach_the_server(harness)
        planned = harness.run(
            "issue_comment", harness.comment_event(number, "/amelia plan"), env=server
        )
        assert planned.exit_code == 0, planned.stdout + planned.stderr
        harness.fresh_checkout()
        _reach_the_server(harness)
        done = harness.run(
            "issue_comment", harness.comment_event(number, "/amelia implement"), env=server
        )
        assert done.exit_code == 0, done.stdout + done.stderr

        branch = f"amelia/issue-{number}"
        # Commits, authors and trailers.
        log = harness.origin_git("log", "--format=%an <%ae>%n%cn <%ce>%n%B", branch)
        assert "amelia[bot] <amelia[bot]@users.noreply.ghe.example.com>" in log
        assert "Co-authored-by: maintainer <maintainer@users.noreply.ghe.example.com>" in log
        assert "github.com" not in log
        # Every body posted: comments, the pull request, its review.
        writes = [r for r in harness.github.requests if r.method in ("POST", "PATCH", "PUT")]
        assert writes
        for request in writes:
            assert "github.com" not in json.dumps(request.body), request.path
        (progress,) = [
            c for c in harness.github.comments(harness.repo, number) if progress_marker(number) in c
        ]
        assert f"{GHES}/octo/app/actions/runs/4242" in progress
        (pull,) = harness.github.pulls(harness.repo)
        assert f"{GHES}/octo/app/blob/" in pull["body"]
        assert "github.com" not in done.summary + planned.summary
