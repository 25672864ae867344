"""Where `{secret: NAME}` and `{input: name}` take their values from: the `mcp_secrets`
input, the step's credential variables, the Action's inputs; a missing or unusable source
is one line naming where it is used and what to do, never a value."""

from __future__ import annotations

from pathlib import Path

import pytest

from amelia.config import load_settings
from amelia.errors import ConfigError
from amelia.mcp.config import McpConfig, ValueReference
from amelia.mcp.servers import launches
from amelia.mcp.values import ValueSources, mcp_secret_values, parse_mcp_secrets
from amelia.redaction import Redactor

ENVIRONMENT = {
    "INPUT_GITHUB_TOKEN": "ghs_inputToken000000000000000001",
    "INPUT_TRIGGER_PHRASE": "/amelia",
    "INPUT_MODEL": "",
    "SENTRY_AUTH_TOKEN": "sntrys_fromTheStep0001",
    "DOCS_REGION_HINT": "eu",
}
SECRETS = """
# one per line
DOCS_API_KEY = docs-key-0001
TRACKER_TOKEN=tracker=with=equals

"""


def sources() -> ValueSources:
    return ValueSources.of(ENVIRONMENT, mcp_secrets=SECRETS)


def test_secrets_come_from_the_input_then_the_steps_credential_variables() -> None:
    found = sources()
    assert found.resolve(ValueReference(secret="DOCS_API_KEY"), where="w") == "docs-key-0001"
    assert found.resolve(ValueReference(secret="TRACKER_TOKEN"), where="w") == "tracker=with=equals"
    assert found.resolve(
        ValueReference(secret="SENTRY_AUTH_TOKEN", prefix="Bearer "), where="w"
    ) == ("Bearer sntrys_fromTheStep0001")
    assert (
        found.resolve(ValueReference(input="github_token"), where="w")
        == ENVIRONMENT["INPUT_GITHUB_TOKEN"]
    )
    assert found.resolve("plain", where="w") == "plain"


def test_a_missing_source_names_the_place_and_the_fix() -> None:
    found = sources()
    cases = {
        ValueReference(secret="NOPE"): "mcp.servers.docs.env.X: the secret NOPE is not set: add "
        "the line NOPE=${{ secrets.NOPE }} to the mcp_secrets input",
        ValueReference(secret="DOCS_REGION_HINT"): "mcp.servers.docs.env.X: the secret "
        "DOCS_REGION_HINT is a variable of the step whose name does not mark it as a "
        "credential, so every agent could read it: pass it in the mcp_secrets input instead "
        "(DOCS_REGION_HINT=${{ secrets.DOCS_REGION_HINT }})",
        ValueReference(input="no_such_input"): "mcp.servers.docs.env.X: the Action has no input "
        "named no_such_input",
        ValueReference(input="model"): "mcp.servers.docs.env.X: the input model is empty",
    }
    for reference, message in cases.items():
        with pytest.raises(ConfigError) as raised:
            found.resolve(reference, where="mcp.servers.docs.env.X")
        assert raised.value.message == message


def test_a_malformed_secrets_input_names_the_line_never_its_content() -> None:
    with pytest.raises(ConfigError) as raised:
        parse_mcp_secrets("A=1\njust-a-value-0001\n")
    assert raised.value.message == (
        "INPUT_MCP_SECRETS line 2: must be NAME=value (a variable name, '=', the value)"
    )
    assert parse_mcp_secrets("") == {}


def test_every_value_of_the_secrets_input_is_masked() -> None:
    assert mcp_secret_values(SECRETS + "stray-value-0002\n") == [
        "docs-key-0001",
        "tracker=with=equals",
        "stray-value-0002",
    ]
    settings = load_settings(
        environ={"INPUT_MCP_SECRETS": "DOCS_API_KEY=docs-key-0001\nOTHER=other-value-02"},
        container_home=Path("/nonexistent"),
    )
    assert {"docs-key-0001", "other-value-02"} <= set(settings.secret_values())
    redactor = Redactor(secrets=settings.secret_values())
    assert redactor.redact("key docs-key-0001 and other-value-02") == "key *** and ***"


def test_launches_fill_in_the_used_servers_and_list_their_secrets() -> None:
    config = McpConfig.model_validate(
        {
            "servers": {
                "docs": {
                    "command": "docs-server",
                    "env": {"DOCS_API_KEY": {"secret": "DOCS_API_KEY"}, "REGION": "eu"},
                },
                "tracker": {
                    "url": "https://t.example/mcp",
                    "headers": {"Authorization": {"secret": "TRACKER_TOKEN", "prefix": "Token "}},
                },
                "idle": {"command": "idle", "env": {"KEY_ID": {"secret": "NOT_SET"}}},
            },
            "agents": {"developer": {"docs": "all"}, "reviewer": {"tracker": "all"}},
        }
    )
    docs, tracker = launches(config, sources())
    assert docs.env == {"DOCS_API_KEY": "docs-key-0001", "REGION": "eu"}
    assert docs.secrets == ["docs-key-0001"]
    assert tracker.headers == {"Authorization": "Token tracker=with=equals"}
    assert tracker.secrets == ["Token tracker=with=equals"]
