"""How ClaudeCliDriver configures the CLI, without starting it."""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

import pytest

from amelia.drivers.cli._claude_tools import tool_permissions
from amelia.drivers.cli.claude import ClaudeCliDriver
from amelia.drivers.factory import DriverFactory
from amelia.drivers.runtime import DriverEnvironment


def test_registry_builds_the_driver_with_keyword_arguments() -> None:
    driver = DriverFactory.get_driver(key="cli:claude", tool_profile="read_only", model="claude-x")
    assert isinstance(driver, ClaudeCliDriver)
    assert (driver.tool_profile, driver.model) == ("read_only", "claude-x")
    assert isinstance(DriverFactory.get_driver(key="cli"), ClaudeCliDriver)


def test_cli_environment_blanks_every_inherited_secret_the_model_key_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_secret")
    monkeypatch.setenv("GH_TOKEN", "gho_secret")
    monkeypatch.setenv("INPUT_OPENAI_API_KEY", "sk-input")
    monkeypatch.setenv("ACTIONS_RUNTIME_TOKEN", "runtime")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-real-key")
    monkeypatch.setenv("CLAUDE_CODE_OAUTH_TOKEN", "sk-ant-oat-the-real-token")
    driver = ClaudeCliDriver(
        env={"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"},
        environment=DriverEnvironment(inherited=dict(os.environ)),
    )
    env = driver.cli_environment()
    for name in (
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "INPUT_OPENAI_API_KEY",
        "ACTIONS_RUNTIME_TOKEN",
        "ANTHROPIC_API_KEY",
        "CLAUDE_CODE_OAUTH_TOKEN",
    ):
        assert env[name] == "", name
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["DISABLE_TELEMETRY"] == "1"
    assert "CLAUDE_CONFIG_DIR" not in env  # the CLI's own default


def test_the_model_connection_comes_from_the_credentials_only(tmp_path: Path) -> None:
    inherited = {
        "PATH": "/usr/bin",
        "GITHUB_TOKEN": "ghs_secret",
        "ANTHROPIC_API_KEY": "sk-ant-the-real-key",
        "ANTHROPIC_AUTH_TOKEN": "the-real-gateway-token",
        "ANTHROPIC_BASE_URL": "https://gateway.example",
    }
    credentials = {
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:4567/anthropic",
        "ANTHROPIC_API_KEY": "amelia-proxy-token",
        "ANTHROPIC_AUTH_TOKEN": "",
        "CLAUDE_CODE_OAUTH_TOKEN": "",
        "OPENAI_API_KEY": "not-for-the-cli",
    }
    driver = ClaudeCliDriver(
        environment=DriverEnvironment(
            inherited=inherited, credentials=credentials, cli_config_dir=tmp_path / "claude"
        )
    )
    env = driver.cli_environment()
    assert env["ANTHROPIC_API_KEY"] == "amelia-proxy-token"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4567/anthropic"
    assert env["ANTHROPIC_AUTH_TOKEN"] == env["CLAUDE_CODE_OAUTH_TOKEN"] == ""
    assert env["GITHUB_TOKEN"] == ""
    assert "OPENAI_API_KEY" not in env
    assert env["PATH"] == "/usr/bin"  # as handed over: a project's setup may extend it
    assert env["CLAUDE_CONFIG_DIR"] == str(tmp_path / "claude")


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
    assert options.strict_mcp_config  # and no MCP server from ~/.claude.json either
    read_only = ClaudeCliDriver(tool_profile="read_only")._options("/tmp", None, "s", None, deque())
    # No profile takes MCP servers from a `.mcp.json` or `~/.claude.json`: only amelia's.
    assert read_only.strict_mcp_config and read_only.mcp_servers == {}
