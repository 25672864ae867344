"""Action inputs: defaults for empty values, clear errors for bad ones."""

import pytest

from amelia.config import load_inputs, load_runner
from amelia.errors import ConfigError


@pytest.fixture(autouse=True)
def _clean_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    for name in list(os.environ):
        if name.startswith(("INPUT_", "GITHUB_")):
            monkeypatch.delenv(name)


def test_empty_inputs_fall_back_to_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("MODEL", "MAX_TURNS", "MAX_REVIEW_ITERATIONS", "ALLOWED_USERS", "DRY_RUN"):
        monkeypatch.setenv(f"INPUT_{name}", "")
    inputs = load_inputs()
    assert inputs.model is None
    assert inputs.max_turns is None
    assert inputs.max_review_iterations == 3
    assert inputs.allowed_users == ()
    assert inputs.dry_run is False
    assert inputs.driver == "cli:claude"


def test_values_are_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INPUT_ALLOWED_USERS", "@alice, bob  carol")
    monkeypatch.setenv("INPUT_DRY_RUN", "true")
    monkeypatch.setenv("INPUT_REVIEW_EVENT", "approve")
    monkeypatch.setenv("INPUT_REVIEW_SCOPE", " Incremental ")
    monkeypatch.setenv("INPUT_OPENAI_API_KEY", "sk-test-123456")
    monkeypatch.setenv("INPUT_GITHUB_TOKEN", "ghs_token123456")
    inputs = load_inputs()
    assert inputs.allowed_users == ("alice", "bob", "carol")
    assert inputs.dry_run is True
    assert inputs.review_event == "APPROVE"
    assert inputs.review_scope == "incremental"
    assert sorted(inputs.secret_values()) == ["ghs_token123456", "sk-test-123456"]
    assert "sk-test-123456" not in repr(inputs)


@pytest.mark.parametrize(
    ("name", "value", "named"),
    [
        ("MAX_REVIEW_ITERATIONS", "three", "INPUT_MAX_REVIEW_ITERATIONS"),
        ("MAX_REVIEW_ITERATIONS", "0", "INPUT_MAX_REVIEW_ITERATIONS"),
        ("MAX_TURNS", "-1", "INPUT_MAX_TURNS"),
        ("DRIVER", "carrier-pigeon", "INPUT_DRIVER"),
        ("DRY_RUN", "perhaps", "INPUT_DRY_RUN"),
        ("PLAN_DIR", "../../etc", "INPUT_PLAN_DIR"),
        ("PLAN_DIR", "/etc/passwd", "INPUT_PLAN_DIR"),
        ("PLAN_DIR", "docs/$(rm -rf ~)", "INPUT_PLAN_DIR"),
        ("PLAN_DIR", ".git/hooks", "INPUT_PLAN_DIR"),
        ("BRANCH_PREFIX", "amelia/;reboot", "INPUT_BRANCH_PREFIX"),
        ("BRANCH_PREFIX", "-delete", "INPUT_BRANCH_PREFIX"),
        ("BRANCH_PREFIX", "a/../b", "INPUT_BRANCH_PREFIX"),
        ("TRIGGER_PHRASE", "two words", "INPUT_TRIGGER_PHRASE"),
        ("REVIEW_EVENT", "DISMISS", "INPUT_REVIEW_EVENT"),
    ],
)
def test_bad_inputs_name_the_variable(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, named: str
) -> None:
    monkeypatch.setenv(f"INPUT_{name}", value)
    with pytest.raises(ConfigError, match=named):
        load_inputs()


def test_runner_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/repo")
    monkeypatch.setenv("GITHUB_RUN_ID", "42")
    monkeypatch.setenv("GITHUB_SERVER_URL", "http://127.0.0.1:9/")
    runner = load_runner()
    assert runner.run_url == "http://127.0.0.1:9/octo/repo/actions/runs/42"
    assert runner.workspace == "/github/workspace"
