"""No agent reaches the job's token through the checkout, whichever way it was persisted.

`/amelia implement` runs end to end (the real Claude Code CLI, the local GitHub serving the
repository over git's HTTP protocol, where a push needs the token) on a checkout that holds
the token as actions/checkout v4 or v6+ leaves it (for a container action too), or as an
earlier step's credential helpers do. The developer agent's first step asks git for the
header, prints every config file git names and every credentials file, asks the credential
helpers and pushes to origin itself: nothing authenticates, nothing holds the token. amelia's
own push still works, and afterwards every file is back byte for byte, also when the run
fails or the job is cancelled.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from amelia.testing.action_harness import ActionHarness, CheckoutCredentials, plan_script
from amelia.testing.anthropic_script import Turn, api_error, text, tool_use

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

APPROVED: dict[str, Any] = {
    "verdict": "approved",
    "severity": "minor",
    "summary": "fine",
    "comments": [],
}


def probe_command(runner_temp: Path, home: Path) -> str:
    """What a developer agent tries with its shell to get at the token."""
    return "; ".join(
        [
            "export GIT_TERMINAL_PROMPT=0",
            "echo '== extraheader'; git config --get-regexp extraheader; echo rc=$?",
            "echo '== list'; git config --list --show-origin --includes",
            "echo '== named files'; for f in $(git config --list --show-origin --includes"
            " | cut -f1 | sed -n 's/^file://p' | sort -u);"
            ' do echo "-- $f"; cat "$f"; done',
            "echo '== includes'; for f in $(git config --get-regexp '^include' | cut -d' ' -f2);"
            ' do echo "-- $f"; cat "$f"; done',
            f'echo \'== temp\'; for f in {runner_temp}/*; do echo "-- $f"; cat "$f"; done',
            f"echo '== home'; cat {home}/.gitconfig {home}/.git-credentials",
            "echo '== helper'; printf 'protocol=http\\nhost=127.0.0.1\\n\\n' | git credential fill",
            "echo '== push'; git push origin HEAD:refs/heads/agent-push; echo push-rc=$?",
        ]
    )


def developer_script(root: Path, *, fail: bool = False, wait: bool = False) -> Any:
    """The model's side: the developer probes, writes one file and ends (or fails, or waits
    to be cancelled); the reviewer approves. `root` is the harness's."""
    workspace, runner_temp, home = root / "workspace", root / "runner-temp", root / "home"
    developer: list[Turn] = [
        [tool_use("Bash", {"command": probe_command(runner_temp, home)})],
        [tool_use("Write", {"file_path": str(workspace / "greeter/bye.py"), "content": "B = 1\n"})],
    ]
    if wait:
        marker = root / "agent-is-running"
        developer.append(
            [tool_use("Bash", {"command": f"touch {marker}; sleep 60", "timeout": 120000})]
        )
    developer.append(api_error(400, "the scripted model gives up") if fail else [text("Done.")])
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    return plan_script(roles={"developer": developer, "reviewer": reviewer})


def _stage_helpers(harness: ActionHarness) -> list[Path]:
    """Credential helpers an earlier step configured: `store` with its file in the local
    config, an inline helper printing the token in the global one."""
    port = harness.server_url.rsplit(":", 1)[1]
    harness.runner_temp.mkdir(parents=True, exist_ok=True)
    store = harness.runner_temp / "helper-store"
    store.write_text(f"http://x-access-token:{harness.token}@127.0.0.1%3a{port}\n")
    store.chmod(0o600)
    subprocess.run(
        ["git", "config", "credential.helper", f"store --file={store}"],
        cwd=harness.workspace,
        check=True,
    )
    harness.home.mkdir(parents=True, exist_ok=True)
    (harness.home / ".gitconfig").write_text(
        "[credential]\n"
        f'\thelper = "!f() {{ echo username=x-access-token; echo password={harness.token}; }}; f"\n'
    )
    return [store, harness.home / ".gitconfig"]


def _push_authenticates(harness: ActionHarness) -> bool:
    """The premise: git in the checkout, as the job left it, can push with the token."""
    environment = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(harness.home),
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    pushed = subprocess.run(
        ["git", "-c", "safe.directory=*", "push", "-q", "origin", "HEAD:refs/heads/premise"],
        cwd=harness.workspace,
        env=environment,
        capture_output=True,
        check=False,
    )
    if pushed.returncode == 0:
        harness.origin_git("branch", "-D", "premise")
    return pushed.returncode == 0


def _files(harness: ActionHarness, extra: list[Path]) -> dict[Path, bytes]:
    paths = [harness.workspace / ".git" / "config", *harness.credentials_files(), *extra]
    return {path: path.read_bytes() for path in paths}


@pytest.mark.parametrize("layout", ["v4", "v6", "v6-container", "helpers"])
def test_the_developer_reaches_no_credential_and_the_checkout_is_restored(
    tmp_path: Path, layout: str
) -> None:
    credentials: CheckoutCredentials = "none" if layout == "helpers" else layout  # type: ignore[assignment]
    root = tmp_path / "action"
    with ActionHarness(root, script=developer_script(root), credentials=credentials) as harness:
        extra = _stage_helpers(harness) if layout == "helpers" else []
        assert _push_authenticates(harness)
        before = _files(harness, extra)
        number = harness.add_planned_issue("Add bye", "Say bye.")

        result = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))

        assert result.exit_code == 0, result.stdout + result.stderr
        seen = result.model_text()
        assert "== push" in seen  # the probe ran and its output reached the model
        assert "rc=1" in seen  # no extraheader anywhere git looks
        assert harness.token not in seen
        assert harness.auth_header().split()[-1] not in seen
        assert "git-credentials-" not in seen.split("== temp")[0]
        # The agent's own push did not authenticate; amelia's did, to the real repository.
        assert "push-rc=128" in seen
        assert "agent-push" not in harness.origin_branches()
        assert "greeter/bye.py" in harness.origin_files(f"amelia/issue-{number}")
        # Afterwards, every file is as actions/checkout and the earlier steps left it.
        assert _files(harness, extra) == before


def _wait_and_cancel(marker: Path) -> Any:
    def cancel(process: subprocess.Popen[str]) -> None:
        deadline = time.monotonic() + 120
        while not marker.exists() and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)

    return cancel


@pytest.mark.parametrize("ending", ["failure", "sigterm"])
def test_the_checkout_is_restored_after_a_failure_or_a_cancellation(
    tmp_path: Path, ending: str
) -> None:
    root = tmp_path / "action"
    script = developer_script(root, fail=ending == "failure", wait=ending == "sigterm")
    with ActionHarness(root, script=script, credentials="v6") as harness:
        before = _files(harness, [])
        number = harness.add_planned_issue("Add bye", "Say bye.")
        cancel = _wait_and_cancel(harness.root / "agent-is-running")

        result = harness.run(
            "issue_comment",
            harness.comment_event(number, "/amelia implement"),
            while_running=cancel if ending == "sigterm" else None,
        )

        assert result.exit_code == 1, result.stdout + result.stderr
        if ending == "sigterm":
            assert "SIGTERM" in result.stdout + result.stderr
        assert harness.token not in result.model_text()
        assert _files(harness, []) == before


def _plant_for_amelias_push(root: Path) -> str:
    """What a developer agent leaves for amelia's own commit and push: hooks that record
    their environment (where the token would be), and config sending the push elsewhere."""
    log, decoy = root / "planted-ran.log", root / "decoy.git"
    hook = f'#!/bin/sh\necho "$0" >> {log}\nenv >> {log}\n'
    lines = [f"git init -q --bare {decoy}"]
    for name in ("pre-push", "post-commit", "reference-transaction", "pre-auto-gc"):
        lines += [f"printf '{hook}' > .git/hooks/{name}", f"chmod +x .git/hooks/{name}"]
    lines += [
        f"git config remote.origin.pushurl {decoy}",
        f'git config url.{decoy}.insteadOf "$(git remote get-url origin)"',
        f"git config core.hooksPath {root}/elsewhere-hooks",
        "git config --get-regexp 'pushurl|insteadof|hookspath'",
    ]
    return "; ".join(lines)


def test_hooks_and_push_urls_an_agent_writes_never_reach_amelias_push(tmp_path: Path) -> None:
    root = tmp_path / "action"
    developer: list[Turn] = [
        [tool_use("Bash", {"command": _plant_for_amelias_push(root)})],
        [tool_use("Write", {"file_path": str(root / "workspace/b.py"), "content": "B = 1\n"})],
        [text("Done.")],
    ]
    reviewer: list[Turn] = [[tool_use("StructuredOutput", APPROVED)], [text("ok")]]
    script = plan_script(roles={"developer": developer, "reviewer": reviewer})
    with ActionHarness(root, script=script, credentials="v6") as harness:
        number = harness.add_planned_issue("Add b", "Add b.")

        result = harness.run("issue_comment", harness.comment_event(number, "/amelia implement"))

        assert result.exit_code == 0, result.stdout + result.stderr
        # The agent's writes took (the premise) …
        assert "remote.origin.pushurl" in result.model_text()
        assert (harness.workspace / ".git/hooks/pre-push").exists()
        # … yet no hook ran and nothing went to the decoy: amelia pushed to the repository.
        assert not (root / "planted-ran.log").exists()
        assert not list((root / "decoy.git" / "refs" / "heads").iterdir())
        assert "b.py" in harness.origin_files(f"amelia/issue-{number}")
        # And the agent's config is gone from the checkout the job's later steps see.
        config = (harness.workspace / ".git" / "config").read_text()
        assert "pushurl" not in config and "insteadOf" not in config
        # The planted hook is a working one: run by hand, it records.
        subprocess.run([harness.workspace / ".git/hooks/pre-push"], check=True)
        assert (root / "planted-ran.log").exists()
