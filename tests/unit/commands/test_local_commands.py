"""`amelia plan | implement | review`: exit codes, error lines and output (scripted drivers)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from amelia.cli import app
from amelia.drivers.base import DriverInterface
from amelia.drivers.factory import DriverFactory
from amelia.testing.scripted_driver import (
    RecordedCall,
    ScriptedDriver,
    ScriptStep,
    result,
    tool_call,
    tool_result,
)
from tests.git_helpers import git

PLAN = "# Plan\n\n**Goal:** Add farewell.\n\n### Task 1: farewell"
TEST_KEY = "test:scripted"


class Scripts:
    """What the scripted driver registered under TEST_KEY will do, and what it was given."""

    def __init__(self) -> None:
        self.drivers: list[ScriptedDriver] = []
        self.turns: list[Any] = []
        self.options: list[dict[str, Any]] = []

    def factory(self, **options: Any) -> DriverInterface:
        self.options.append(options)
        driver = ScriptedDriver(self.turns)
        self.drivers.append(driver)
        return driver


@pytest.fixture
def scripts() -> Iterator[Scripts]:
    registered = Scripts()
    DriverFactory.register_driver(TEST_KEY, registered.factory)
    yield registered
    DriverFactory._registry.pop(TEST_KEY, None)


runner = CliRunner()


def _invoke(*args: str) -> Any:
    return runner.invoke(app, list(args))


@pytest.mark.parametrize(
    "args",
    [
        ["plan", "--title", "T", "--repo", "{missing}"],
        ["plan", "--title", "T", "--repo", "{plain}"],
        ["plan", "--title", "T", "--repo", "{repo}", "--body-file", "{missing}"],
        ["plan", "--title", "T", "--repo", "{repo}", "--driver", "nope:driver"],
        ["implement", "--plan", "{missing}", "--repo", "{repo}"],
        ["implement", "--plan", "{empty}", "--repo", "{repo}"],
        ["review", "--base", "no-such-ref", "--repo", "{repo}"],
        ["review", "--base", "HEAD", "--repo", "{plain}"],
    ],
)
def test_bad_input_is_one_error_line_and_exit_2(
    tmp_path: Path, repo: Path, args: list[str]
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    empty = tmp_path / "empty.md"
    empty.write_text("  \n")
    places = {"missing": tmp_path / "missing", "plain": plain, "repo": repo, "empty": empty}
    result = _invoke(*(arg.format(**{k: str(v) for k, v in places.items()}) for arg in args))
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output


def test_plan_writes_the_plan_and_passes_options_to_the_driver(
    repo: Path, tmp_path: Path, scripts: Scripts
) -> None:
    scripts.turns.append([result(PLAN)])
    body = tmp_path / "body.md"
    body.write_text("Say goodbye too.")
    transcript = tmp_path / "events.jsonl"

    outcome = _invoke(
        "plan",
        "--title",
        "Add farewell",
        "--issue-number",
        "12",
        "--body-file",
        str(body),
        "--repo",
        str(repo),
        "--driver",
        TEST_KEY,
        "--model",
        "m-1",
        "--max-turns",
        "7",
        "--transcript",
        str(transcript),
    )

    assert outcome.exit_code == 0, outcome.output
    (plan_file,) = (repo / "docs" / "plans").glob("*-issue-12-add-farewell.md")
    assert plan_file.read_text() == PLAN + "\n"
    assert f"plan: {plan_file}" in outcome.output
    assert scripts.options == [{"model": "m-1", "tool_profile": "read_only", "max_turns": 7}]
    assert "Say goodbye too." in scripts.drivers[0].calls[0].prompt
    kinds = [json.loads(line)["type"] for line in transcript.read_text().splitlines()]
    assert kinds[0] == "stage_started" and kinds[-1] == "stage_completed"


def test_amelia_driver_and_model_are_the_fallbacks_of_the_options(
    repo: Path, scripts: Scripts, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AMELIA_DRIVER", TEST_KEY)
    monkeypatch.setenv("AMELIA_MODEL", "m-env")
    scripts.turns += [[result(PLAN)], [result(PLAN)]]

    assert _invoke("plan", "--title", "T", "--repo", str(repo)).exit_code == 0
    assert _invoke("plan", "--title", "T", "--repo", str(repo), "--model", "m-opt").exit_code == 0
    assert [options["model"] for options in scripts.options] == ["m-env", "m-opt"]

    monkeypatch.setenv("AMELIA_DRIVER", "nope")
    outcome = _invoke("plan", "--title", "T", "--repo", str(repo))
    assert outcome.exit_code == 2
    assert outcome.output.startswith("error: Unknown driver key: 'nope'")
    scripts.turns.append([result(PLAN)])
    chosen = _invoke("plan", "--title", "T", "--repo", str(repo), "--driver", TEST_KEY)
    assert chosen.exit_code == 0, chosen.output


def test_plan_failure_exits_1_with_the_reason(repo: Path, scripts: Scripts) -> None:
    scripts.turns += [[result("chatter")], [result("more chatter")]]
    outcome = _invoke("plan", "--title", "T", "--repo", str(repo), "--driver", TEST_KEY)
    assert outcome.exit_code == 1
    assert "architect failed: no plan in the answer after a retry" in outcome.output


def test_implement_runs_the_developer_with_the_full_profile(
    repo: Path, tmp_path: Path, scripts: Scripts
) -> None:
    def develop(call: RecordedCall) -> list[ScriptStep]:
        assert call.cwd is not None
        (Path(call.cwd) / "farewell.py").write_text("x = 1\n")
        return [result("wrote farewell.py")]

    scripts.turns.append(develop)
    plan_file = repo / "plan.md"
    plan_file.write_text(PLAN)
    outcome = _invoke(
        "implement", "--plan", str(plan_file), "--repo", str(repo), "--driver", TEST_KEY
    )
    assert outcome.exit_code == 0, outcome.output
    assert "?? farewell.py" in outcome.output
    assert scripts.options[0]["tool_profile"] == "full"
    assert "plan.md" in scripts.drivers[0].calls[0].prompt


@pytest.mark.parametrize(("verdict", "code"), [("approved", 0), ("changes_requested", 1)])
def test_review_exit_code_follows_the_verdict(
    repo: Path, scripts: Scripts, verdict: str, code: int
) -> None:
    (repo / "new.py").write_text("x = 1\n")
    answer = {
        "verdict": verdict,
        "summary": "s",
        "comments": [{"path": "new.py", "line": 1, "body": "Name x better"}],
    }
    scripts.turns.append([result(json.dumps(answer))])
    outcome = _invoke(
        "review", "--base", "HEAD", "--repo", str(repo), "--driver", TEST_KEY, "--json"
    )
    assert outcome.exit_code == code, outcome.output
    printed = json.loads(outcome.stdout)
    assert printed["verdict"] == verdict
    assert printed["comments"][0]["body"] == "Name x better"
    assert scripts.options[0]["tool_profile"] == "read_only"


def test_repo_may_be_a_folder_inside_the_work_tree(repo: Path, scripts: Scripts) -> None:
    scripts.turns.append([result(PLAN)])
    outcome = _invoke("plan", "--title", "T", "--repo", str(repo / "greeter"), "--driver", TEST_KEY)
    assert outcome.exit_code == 0, outcome.output
    assert len(list((repo / "docs" / "plans").glob("*-local-t.md"))) == 1
    assert not (repo / "greeter" / "docs").exists()


def test_a_bare_repository_is_named_as_one(tmp_path: Path, repo: Path) -> None:
    bare = tmp_path / "origin.git"
    git(tmp_path, "clone", "--quiet", "--bare", str(repo), str(bare))
    outcome = _invoke("plan", "--title", "T", "--repo", str(bare))
    assert outcome.exit_code == 2
    assert outcome.output == (
        f"error: {bare} is a bare repository, which has no files to work on: "
        "clone it and pass the clone to --repo\n"
    )


NO_KEYS = (
    "ANTHROPIC_API_KEY",
    "CLAUDE_CODE_OAUTH_TOKEN",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "OPENAI_API_KEY",
    "AMELIA_DRIVER",
    "AMELIA_MODEL",
)


@pytest.mark.skipif(sys.platform == "darwin", reason="a Claude login may be in the keychain")
@pytest.mark.parametrize(
    ("driver", "message"),
    [
        (
            "cli:claude",
            "error: Claude Code has no credentials: set ANTHROPIC_API_KEY (an Anthropic API key)"
            " or CLAUDE_CODE_OAUTH_TOKEN (made by `claude setup-token`), or log in with "
            "`claude /login`\n",
        ),
        (
            "api:openai",
            "error: OPENAI_API_KEY is not set: set it to use 'openai:gpt-4o' with the api driver\n",
        ),
        (
            "api:openrouter",
            "error: OPENROUTER_API_KEY is not set: set it to use 'openrouter:openai/gpt-4o' "
            "with the api driver\n",
        ),
    ],
    ids=["cli:claude", "api:openai", "api:openrouter"],
)
def test_a_driver_without_a_key_is_one_line_naming_the_variable_before_anything_runs(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, driver: str, message: str
) -> None:
    for name in NO_KEYS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    outcome = _invoke("plan", "--title", "T", "--repo", str(repo), "--driver", driver)
    assert outcome.exit_code == 2
    assert outcome.output == message  # once, and nothing started before it
    assert not (repo / "docs").exists()


def test_version_is_an_option_and_flags_show_no_type_in_help() -> None:
    from amelia import __version__

    shown = _invoke("--version")
    assert (shown.exit_code, shown.output) == (0, f"{__version__}\n")
    usage = _invoke("run", "--help").output + _invoke("plan", "--help").output
    assert "--dry-run" in usage and "--verbose" in usage and "<bool>" not in usage


def test_a_bad_configuration_file_is_one_error_line_and_exit_2_before_any_model_runs(
    repo: Path, tmp_path: Path, scripts: Scripts
) -> None:
    (repo / ".github").mkdir()
    (repo / ".github" / "amelia.yml").write_text("agents:\n  developer: {max_turns: many}\n")
    in_tree = _invoke("plan", "--title", "T", "--repo", str(repo), "--driver", TEST_KEY)
    other = tmp_path / "other.yml"
    other.write_text("review: {ignore_paths: ['/etc']}\n")
    given = _invoke(
        "plan", "--title", "T", "--repo", str(repo), "--driver", TEST_KEY, "--config", str(other)
    )
    missing = _invoke(
        "plan", "--title", "T", "--repo", str(repo), "--config", str(tmp_path / "nope.yml")
    )

    assert in_tree.exit_code == 2, in_tree.output
    assert in_tree.output.startswith(
        "error: .github/amelia.yml: agents.developer.max_turns: Input should be a valid integer"
    )
    assert given.exit_code == 2 and f"error: {other}: review.ignore_paths[0]:" in given.output
    assert missing.exit_code == 2 and "configuration file not found" in missing.output
    assert scripts.drivers == []


def test_the_configuration_file_instructs_the_agent_and_a_flag_wins_over_it(
    repo: Path, tmp_path: Path, scripts: Scripts
) -> None:
    config = tmp_path / "amelia.yml"
    config.write_text(
        "instructions: RULE-FROM-CONFIG\nagents:\n  architect: {model: m-config, max_turns: 9}\n"
    )
    (repo / "AGENTS.md").write_text("RULE-FROM-AGENTS\n")
    scripts.turns.append([result(PLAN)])
    outcome = _invoke(
        "plan",
        "--title",
        "T",
        "--repo",
        str(repo),
        "--driver",
        TEST_KEY,
        "--model",
        "m-flag",
        "--config",
        str(config),
    )

    assert outcome.exit_code == 0, outcome.output
    assert scripts.options == [{"tool_profile": "read_only", "model": "m-flag", "max_turns": 9}]
    (call,) = scripts.drivers[0].calls
    assert call.instructions is not None
    assert "RULE-FROM-CONFIG" in call.instructions and "RULE-FROM-AGENTS" in call.instructions


def test_review_with_nothing_to_review_says_so_and_exits_0(
    repo: Path, scripts: Scripts, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in NO_KEYS:  # no model is needed to see an empty diff
        monkeypatch.delenv(name, raising=False)

    outcome = _invoke("review", "--base", "HEAD", "--repo", str(repo))

    assert outcome.exit_code == 0, outcome.output
    assert outcome.stdout == "nothing to review: There are no changes since HEAD to review.\n"
    as_json = _invoke("review", "--base", "HEAD", "--repo", str(repo), "--json")
    assert as_json.exit_code == 0, as_json.output
    assert json.loads(as_json.stdout) == {
        "verdict": None,
        "summary": "There are no changes since HEAD to review.",
        "comments": [],
    }
    assert scripts.drivers == []


def test_review_of_changes_the_configuration_ignores_only_is_nothing_to_review(
    repo: Path, scripts: Scripts
) -> None:
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "amelia.yml").write_text("review:\n  ignore_paths: ['generated/**']\n")
    git(repo, "add", ".github/amelia.yml")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-qm", "cfg")
    (repo / "generated").mkdir()
    (repo / "generated" / "out.py").write_text("x = 1\n")

    outcome = _invoke("review", "--base", "HEAD", "--repo", str(repo), "--driver", TEST_KEY)

    assert outcome.exit_code == 0, outcome.output
    assert "nothing to review: There are no changes since HEAD to review." in outcome.stdout
    assert all(driver.calls == [] for driver in scripts.drivers)


def test_off_a_terminal_a_tool_error_is_printed_once(repo: Path, scripts: Scripts) -> None:
    scripts.turns.append(
        [
            tool_call("Bash", {"command": "pytest"}, "c1"),
            tool_result("Bash", "ERROR-MARKER-7: 3 tests failed", "c1", is_error=True),
            result(PLAN),
        ]
    )

    outcome = _invoke("plan", "--title", "T", "--repo", str(repo), "--driver", TEST_KEY)

    assert outcome.exit_code == 0, outcome.output
    assert outcome.output.count("ERROR-MARKER-7") == 1, outcome.output
    assert "amelia.pipeline.sinks" not in outcome.output


def test_a_traceback_in_the_commands_log_shows_no_local_variables_value(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from loguru import logger

    from amelia.commands.local import _configure_logging

    def connect(key: str) -> None:
        held = key
        raise ConnectionError(f"no answer after {len(held)} characters")

    secret = "sk-proj-" + "held-in-a-local-variable-0005"
    _configure_logging(verbose=True)
    try:
        connect(secret)
    except ConnectionError as error:
        logger.opt(exception=error).warning("the model could not be reached")

    logged = capsys.readouterr().err
    assert "the model could not be reached" in logged
    assert "ConnectionError: no answer after 37 characters" in logged
    assert "raise ConnectionError(" in logged
    assert secret not in logged
