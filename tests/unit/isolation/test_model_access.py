"""Which upstreams the proxy gets from the model credentials, and what the drivers get."""

from __future__ import annotations

import asyncio

import pytest

from amelia.errors import ConfigError
from amelia.isolation.model_access import ModelAccess, model_access, model_upstreams

ANTHROPIC_KEY = "sk-ant-api03-" + "a" * 30
OAUTH_TOKEN = "sk-ant-oat01-" + "o" * 30
GATEWAY_TOKEN = "gateway-" + "g" * 30
OPENAI_KEY = "sk-proj-" + "p" * 30
OPENROUTER_KEY = "sk-or-v1-" + "r" * 30


def test_claude_codes_order_of_precedence_picks_the_anthropic_credential() -> None:
    every = {
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "CLAUDE_CODE_OAUTH_TOKEN": OAUTH_TOKEN,
        "ANTHROPIC_AUTH_TOKEN": GATEWAY_TOKEN,
    }
    (gateway,) = model_upstreams(every, {"ANTHROPIC_BASE_URL": "https://llm.example/api"})
    assert (gateway.kind, gateway.credential.get_secret_value()) == ("auth_token", GATEWAY_TOKEN)
    assert gateway.base_url == "https://llm.example/api"
    del every["ANTHROPIC_AUTH_TOKEN"]
    (key,) = model_upstreams(every, {})
    assert (key.kind, key.credential.get_secret_value()) == ("api_key", ANTHROPIC_KEY)
    (oauth,) = model_upstreams({"CLAUDE_CODE_OAUTH_TOKEN": OAUTH_TOKEN}, {})
    assert (oauth.kind, oauth.credential.get_secret_value()) == ("oauth_token", OAUTH_TOKEN)


def test_one_upstream_per_model_api_at_the_base_url_chosen() -> None:
    credentials = {"OPENAI_API_KEY": OPENAI_KEY, "OPENROUTER_API_KEY": OPENROUTER_KEY}
    environ = {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}
    openai, openrouter = model_upstreams(credentials, environ)
    assert (openai.provider, openai.credential.get_secret_value(), openai.base_url) == (
        "openai",
        OPENAI_KEY,
        "http://127.0.0.1:9/v1",
    )
    assert (openrouter.provider, openrouter.credential.get_secret_value()) == (
        "openrouter",
        OPENROUTER_KEY,
    )
    assert model_upstreams({}, environ) == []


@pytest.mark.parametrize(
    ("credentials", "environ", "named"),
    [
        ({"OPENAI_API_KEY": OPENAI_KEY}, {"OPENAI_BASE_URL": "ftp://x.example"}, "OPENAI_BASE_URL"),
        (
            {"ANTHROPIC_API_KEY": ANTHROPIC_KEY},
            {"ANTHROPIC_BASE_URL": f"https://x.example/?key={ANTHROPIC_KEY}"},
            "ANTHROPIC_BASE_URL",
        ),
        ({"OPENROUTER_API_KEY": f"{OPENROUTER_KEY} trailing"}, {}, "OPENROUTER_API_KEY"),
    ],
)
def test_what_the_proxy_cannot_use_is_one_config_error_without_the_value(
    credentials: dict[str, str], environ: dict[str, str], named: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        model_upstreams(credentials, environ)
    assert named in raised.value.message
    for value in (*credentials.values(), *environ.values()):
        assert value not in raised.value.message


def test_the_drivers_get_the_proxys_urls_and_token_in_place_of_every_key() -> None:
    upstreams = model_upstreams(
        {"ANTHROPIC_API_KEY": ANTHROPIC_KEY, "OPENAI_API_KEY": OPENAI_KEY}, {}
    )

    async def inside() -> ModelAccess:
        async with model_access(upstreams) as access:
            return access

    access = asyncio.run(inside())
    environment, token = dict(access.environment), access.token
    assert token is not None and token not in (ANTHROPIC_KEY, OPENAI_KEY)
    assert environment["ANTHROPIC_API_KEY"] == environment["OPENAI_API_KEY"] == token
    assert environment["ANTHROPIC_AUTH_TOKEN"] == environment["CLAUDE_CODE_OAUTH_TOKEN"] == ""
    assert environment["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert environment["OPENAI_BASE_URL"].startswith("http://127.0.0.1:")
    assert {ANTHROPIC_KEY, OPENAI_KEY}.isdisjoint(environment.values())


def test_without_credentials_nothing_starts() -> None:
    async def inside() -> ModelAccess:
        async with model_access([]) as access:
            return access

    assert asyncio.run(inside()) == ModelAccess()
