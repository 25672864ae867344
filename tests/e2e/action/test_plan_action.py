"""`amelia action` end to end for `/amelia plan`: real PyGithub against the local GitHub
server, the real Claude Code CLI (or pydantic-ai's OpenRouter provider) against the scripted
model, a bare repository as origin. The mode's behaviour is specified in-process in
`tests/modes/test_plan.py`; these runs show the real entry point (a subprocess, as a
runner starts it) and the drivers' own tools (`run_engine`: the engine in the test's
process, with the drivers, PyGithub and the servers as real as a subprocess's)."""

from __future__ import annotations

import pytest

from amelia.git import basic_auth_header, noreply_address
from amelia.github.markers import progress_marker
from amelia.testing.action_harness import DEFAULT_PLAN, ActionHarness
from amelia.testing.openai_server import ScriptedOpenAIServer
from amelia.testing.openai_server import text as openai_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def _progress_posts(harness: ActionHarness) -> list[str]:
    return [c for c in harness.github.comments(harness.repo, 1) if progress_marker(1) in c]


def test_plan_by_a_writer_pushes_the_plan_and_links_it(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    result = harness.run("issue_comment", harness.comment_event(number, "/amelia plan"))

    assert result.exit_code == 0, result.stdout + result.stderr
    branch = f"amelia/issue-{number}"
    assert result.outputs["branch"] == branch
    plan_path = result.outputs["plan_path"]
    assert plan_path.startswith("docs/plans/") and f"issue-{number}-" in plan_path
    assert branch in harness.origin_branches()
    assert "**Goal:**" in harness.origin_file(branch, plan_path)
    message = harness.origin_git("log", "-1", "--format=%an%n%B", branch)
    assert message.startswith("amelia[bot]\nPlan issue #1")
    # The noreply address of the GitHub the run is on (GITHUB_SERVER_URL's host).
    address = noreply_address("maintainer", server_url=harness.server_url)
    assert f"Co-authored-by: maintainer <{address}>" in message

    # Created once as soon as the run was accepted, then edited with the outcome.
    creates = result.github_writes
    posts = [r for r in creates if r.method == "POST" and r.path.endswith("/issues/1/comments")]
    assert len(posts) == 1
    assert "Workflow run and logs" in posts[0].body["body"]
    sha = harness.origin_git("rev-parse", branch).strip()
    (final,) = _progress_posts(harness)
    assert f"{harness.server_url}/octo/app/blob/{sha}/{plan_path}" in final
    assert "**Done**" in final and f"{harness.server_url}/octo/app/actions/runs/4242" in final
    assert result.outputs["conclusion"] == "success"
    assert "| architect |" in result.summary
    assert "::group::" in result.stdout
    assert f"::add-mask::{harness.token}" in result.stdout
    assert harness.token not in result.stdout.replace(f"::add-mask::{harness.token}", "")
    assert harness.token not in result.stderr + result.summary + final


def test_agent_tools_never_see_the_token(harness: ActionHarness) -> None:
    number = harness.add_issue("Add a farewell", "Say goodbye.")
    before = (harness.workspace / ".git" / "config").read_bytes()
    result = harness.run_engine("issue_comment", harness.comment_event(number, "/amelia plan"))

    assert result.exit_code == 0, result.stdout + result.stderr
    seen = result.model_text()
    assert "cat .git/config" in seen  # the probe ran and its output went back to the model
    assert '[remote \\"origin\\"]' in seen
    assert harness.token not in seen
    assert "extraheader" not in seen
    # Given back once the run is over, for the job's later steps and checkout's own cleanup.
    assert (harness.workspace / ".git" / "config").read_bytes() == before
    assert basic_auth_header(harness.token).encode() in before


def test_api_openrouter_with_only_its_key_input_plans_on_an_openrouter_model(
    harness: ActionHarness,
) -> None:
    """`driver: api:openrouter` and the `openrouter_api_key` input, no model: the run plans
    on the driver's default OpenRouter model, never asking for an OpenAI key."""
    key = "sk-or-v1-" + "0a1b2c3d" * 8
    number = harness.add_issue("Add a farewell", "greeter says hello; let it say goodbye too.")
    with ScriptedOpenAIServer([[openai_text(DEFAULT_PLAN)]]) as openrouter:
        result = harness.run_engine(
            "issue_comment",
            harness.comment_event(number, "/amelia plan"),
            inputs={"driver": "api:openrouter", "anthropic_api_key": "", "openrouter_api_key": key},
            env={"OPENROUTER_BASE_URL": openrouter.url},
        )
        requests = list(openrouter.requests)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert "OPENAI_API_KEY" not in result.stdout + result.stderr
    assert "**Goal:**" in harness.origin_file(result.outputs["branch"], result.outputs["plan_path"])
    assert [request.body["model"] for request in requests] == ["openai/gpt-4o"]
    assert {request.headers.get("authorization") for request in requests} == {f"Bearer {key}"}
