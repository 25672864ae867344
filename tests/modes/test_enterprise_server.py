"""On GitHub Enterprise Server nothing amelia writes names github.com: links come from
`GITHUB_SERVER_URL`, the API from `GITHUB_API_URL`, and the bot's and co-authors' addresses
are `<login>@users.noreply.<host>`."""

from __future__ import annotations

import json

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import ActionHarness, git, plan_agents
from amelia.testing.scripted_agents import AgentTurn, final_result, say, write_file

GHES = "https://ghe.example.com"


def _reach_the_server(action: ActionHarness) -> None:
    """ghe.example.com resolves nowhere here: route its git traffic to the local GitHub in
    the checkout's config, as the runner's DNS would."""
    git(action.workspace, "config", "--local", f"url.{action.server_url}/.insteadOf", f"{GHES}/")


def test_a_plan_and_its_implementation_never_name_github_com(action: ActionHarness) -> None:
    verdict = {"verdict": "approved", "severity": "none", "summary": "Fine", "comments": []}
    roles: dict[str, list[AgentTurn]] = {
        "developer": [[write_file("greeter/farewell.py", "x = 1\n")], [say("Done")]],
        "reviewer": [[final_result(**verdict)], [say("ok")]],
    }
    action.agents = plan_agents(roles=roles)
    action.github.web_url = GHES
    server = {"GITHUB_SERVER_URL": GHES}
    number = action.add_issue("Add a farewell", "Say goodbye too.")
    _reach_the_server(action)
    planned = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia plan"), env=server
    )
    assert planned.exit_code == 0, planned.stdout + planned.stderr
    action.fresh_checkout()
    _reach_the_server(action)
    done = action.run_in_process(
        "issue_comment", action.comment_event(number, "/amelia implement"), env=server
    )
    assert done.exit_code == 0, done.stdout + done.stderr

    branch = f"amelia/issue-{number}"
    # Commits, authors and trailers.
    log = action.origin_git("log", "--format=%an <%ae>%n%cn <%ce>%n%B", branch)
    assert "amelia[bot] <amelia[bot]@users.noreply.ghe.example.com>" in log
    assert "Co-authored-by: maintainer <maintainer@users.noreply.ghe.example.com>" in log
    assert "github.com" not in log
    # Every body posted: comments, the pull request, its review.
    writes = [*planned.github_writes, *done.github_writes]
    assert writes
    for request in writes:
        assert "github.com" not in json.dumps(request.body), request.path
    (progress,) = [
        c for c in action.github.comments(action.repo, number) if progress_marker(number) in c
    ]
    assert f"{GHES}/octo/app/actions/runs/4242" in progress
    (pull,) = action.github.pulls(action.repo)
    assert f"{GHES}/octo/app/blob/" in pull["body"]
    assert "github.com" not in done.summary + planned.summary
