"""How ClaudeCliDriver configures the CLI, without starting it."""

from __future__ import annotations

import os
from collections import deque

import pytest

from amelia.drivers.cli._claude_tools import tool_permissions
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.factory import DriverFactory
from amelia.drivers.runtime import DriverEnvironment


def test_registry_builds_the_driver_with_keyword_arguments() -> None:
    driver = DriverFactory.get_driver("cli:claude", tool_profile="read_only", model="claude-x")
    assert isinstance(driver, ClaudeCliDriver)
    assert (driver.tool_profile, driver.model) == ("read_only", "claude-x")
    assert isinstance(DriverFactory.get_driver("cli"), ClaudeCliDriver)


def test_cli_environment_blanks_secrets_but_keeps_the_model_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secret")
    monkeypatch.setenv("GH_TOKEN", "gho_secret")
    monkeypatch.setenv("INPUT_OPENAI_API_KEY", "sk-input")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "runtime")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-kept")
    driver = ClaudeCliDriver(
        env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
        environment=DriverEnvironment(inherited=dict(os.environ)),
    )
    env = driver.cli_environment()
    for name in ("GITHUB_TOKEN", "GH_TOKEN", "INPUT_OPENAI_API_KEY", "ACTIONS_RUNTIME_TOKEN"):
        assert env[name] == ""
    assert "ANTHROPIC_API_KEY" not in env  # inherited unchanged by the SDK's copy
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["DISABLE_TELEMETRY"] == "1"


def test_a_key_the_cli_does_not_inherit_is_handed_to_it() -> None:
    inherited = {"PATH": "/usr/bin", "GITHUB_TOKEN": "ghs_secret"}
    credentials = {"ANTHROPIC_API_KEY": "sk-ant-from-the-settings"}
    driver = ClaudeCliDriver(
        environment=DriverEnvironment(inherited=inherited, credentials=credentials)
    )
    env = driver.cli_environment()
    assert env["ANTHROPIC_API_KEY"] == "sk-ant-from-the-settings"
    assert env["GITHUB_TOKEN"] == ""
    assert "PATH" not in env  # inherited as it is


def test_profiles_never_bypass_permissions() -> None:
    read_only = tool_permissions("read_only")
    full = tool_permissions("full")
    assert "Write" not in read_only.tools and "Edit" not in read_only.tools
    assert {"Bash", "Read", "Write", "Edit"} <= set(full.tools)
    assert {read_only.permission_mode, full.permission_mode} == {"default", "acceptEdits"}
    assert "WebFetch" not in full.tools
    assert "WebFetch" in tool_permissions("full", web_tools=True).tools


def test_the_file_reading_profile_has_no_shell_no_network_and_reads_no_settings() -> None:
    files = tool_permissions("read_files", web_tools=True)
    assert files.tools == files.allowed_tools == ("Read", "Glob", "Grep")
    assert files.permission_mode == "default"
    assert files.setting_sources == ()
    assert tool_permissions("read_only").setting_sources is None
    driver = ClaudeCliDriver(tool_profile="read_files", web_tools=True)
    options = driver._options("/tmp", None, "system", None, deque())
    assert options.tools == ["Read", "Glob", "Grep"]
    assert options.setting_sources == []  # no CLAUDE.md, settings or hooks of any directory
