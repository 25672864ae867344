"""Only the agents' work is pushed, and never a secret of the run.

`/amelia implement` runs end to end on a checkout where earlier steps of the job left
files: a credentials file from an auth action, an `.npmrc` with a token, a README they
edited. The developer adds its file, an environment file, and a string shaped like a token;
or it writes the job's token (base64-encoded) into a file.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest

from amelia.github.markers import progress_marker
from amelia.testing.action_harness import DEFAULT_TOKEN, ActionHarness, plan_script
from amelia.testing.anthropic_script import Turn, text, tool_use

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "fine",
    "comments": [],
}
NPM_TOKEN = "npm_" + "EarlierStepRegistryToken0123456789ab"
EXAMPLE_TOKEN = "ghp_" + "ExampleLookingTokenInTheChange0123456"
EARLIER = {
    "gha-creds-4f3e2d1c0b9a.json": '{"type": "service_account", "private_key": "k"}\n',
    ".npmrc": f"//registry.npmjs.org/:_authToken={NPM_TOKEN}\n",
}


def _writes(workspace: Path, files: dict[str, str]) -> list[Turn]:
    return [
        [tool_use("Write", {"file_path": str(workspace / name), "content": content})]
        for name, content in files.items()
    ]


def _script(root: Path, files: dict[str, str]) -> Any:
    look = "cat .npmrc gha-creds-*.json; git status --short"
    developer = [
        [tool_use("Bash", {"command": look, "description": "Look"})],
        *_writes(root / "workspace", files),
        [text("Done.")],
    ]
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    return plan_script(roles={"developer": developer, "reviewer": reviewer})


def _earlier_steps(harness: ActionHarness) -> None:
    for name, content in EARLIER.items():
        (harness.workspace / name).write_text(content)
    readme = harness.workspace / "README.md"
    readme.write_text(readme.read_text() + "\nBuilt by CI.\n")


def _progress(harness: ActionHarness, number: int) -> str:
    (body,) = [
        c for c in harness.github.comments(harness.repo, number) if progress_marker(number) in c
    ]
    return body


def test_implement_commits_only_the_agents_files(tmp_path: Path) -> None:
    root = tmp_path / "action"
    agent_files = {
        "greeter/bye.py": "def bye() -> str:\n    return 'bye'\n",
        ".env.agent": "SOMETHING=1\n",
        "greeter/example.py": f'EXAMPLE = "{EXAMPLE_TOKEN}"\n',
    }
    with ActionHarness(root, script=_script(root, agent_files)) as harness:
        number = harness.add_planned_issue("Add bye", "Say bye.")
        _earlier_steps(harness)
        readme = (harness.workspace / "README.md").read_bytes()

        result = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))

        assert result.exit_code == 0, result.stdout + result.stderr
        branch = f"amelia/issue-{number}"
        added = set(harness.origin_files(branch)) - set(harness.origin_files("main"))
        assert added == {
            "docs/plans/2026-01-01-issue-1-plan.md",
            "greeter/bye.py",
            "greeter/example.py",
        }
        assert "Built by CI" not in harness.origin_file(branch, "README.md")
        # The earlier files are where the earlier steps left them.
        for name, content in EARLIER.items():
            assert (harness.workspace / name).read_text() == content
        assert (harness.workspace / "README.md").read_bytes() == readme
        # What was left out, and what looks like a credential, is said where people look.
        progress = _progress(harness, number)
        assert "Not committed: `.env.agent`" in progress
        assert "`greeter/example.py` (GitHub token)" in progress
        (pull,) = harness.github.pulls(harness.repo)
        assert "`greeter/example.py` (GitHub token)" in pull["body"]
        assert "`.env.agent`" in pull["body"]
        # The earlier step's credentials were out of the agents' reach while they ran.
        assert "cat .npmrc" in result.model_text()
        assert NPM_TOKEN not in result.model_text() + progress + pull["body"]
        assert "Built by CI" not in result.model_text()  # nor shown as the agents' change


def test_a_change_holding_the_jobs_token_is_never_pushed(tmp_path: Path) -> None:
    root = tmp_path / "action"
    token = base64.b64encode(DEFAULT_TOKEN.encode()).decode()
    script = _script(root, {"greeter/stolen.py": f'DATA = "{token}"\n', "greeter/ok.py": "x = 1\n"})
    with ActionHarness(root, script=script) as harness:
        number = harness.add_planned_issue("Add bye", "Say bye.")

        result = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))

        assert result.exit_code == 1, result.stdout + result.stderr
        branch = f"amelia/issue-{number}"
        assert "greeter/ok.py" not in harness.origin_files(branch)
        assert harness.github.pulls(harness.repo) == []
        progress = _progress(harness, number)
        assert "**Failed**" in progress and "`greeter/stolen.py`" in progress
        logged = "\n".join(
            line for line in result.stdout.splitlines() if not line.startswith("::add-mask::")
        )
        everything = progress + logged + result.stderr + result.summary
        assert token not in everything and harness.token not in everything
        (patch,) = harness.runner_temp.rglob("unpushed.patch")
        saved = patch.read_text() + "".join(
            path.read_text() for path in patch.parent.rglob("files/**/*") if path.is_file()
        )
        assert "greeter/ok.py" in saved and "***" in saved
        assert token[4:-4] not in saved
