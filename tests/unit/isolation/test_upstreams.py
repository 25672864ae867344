"""How the proxy rewrites a request's credential and which paths it serves."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from amelia.isolation.upstreams import (
    Upstream,
    forwarded_request_headers,
    forwarded_response_headers,
    presented_credentials,
)

CLIENT_HEADERS = [
    (b"Host", b"127.0.0.1:1234"),
    (b"X-Api-Key", b"amelia-proxy-token"),
    (b"Authorization", b"Bearer amelia-proxy-token"),
    (b"Connection", b"keep-alive"),
    (b"Content-Length", b"2"),
    (b"anthropic-version", b"2023-06-01"),
    (b"anthropic-beta", b"claude-code-20250219"),
]


def test_an_anthropic_key_replaces_the_clients_credential_as_x_api_key() -> None:
    upstream = Upstream(provider="anthropic", credential="sk-ant-real")
    assert forwarded_request_headers(upstream, CLIENT_HEADERS) == [
        (b"anthropic-version", b"2023-06-01"),
        (b"anthropic-beta", b"claude-code-20250219"),
        (b"x-api-key", b"sk-ant-real"),
    ]


def test_an_oauth_token_goes_as_bearer_with_the_oauth_beta_added_once() -> None:
    upstream = Upstream(provider="anthropic", credential="sk-ant-oat-real", kind="oauth_token")
    headers = forwarded_request_headers(upstream, CLIENT_HEADERS)
    assert headers[-2:] == [
        (b"anthropic-beta", b"claude-code-20250219,oauth-2025-04-20"),
        (b"authorization", b"Bearer sk-ant-oat-real"),
    ]
    again = forwarded_request_headers(upstream, [(b"anthropic-beta", b"a, oauth-2025-04-20")])
    assert again == [
        (b"anthropic-beta", b"a, oauth-2025-04-20"),
        (b"authorization", b"Bearer sk-ant-oat-real"),
    ]


def test_a_gateway_token_goes_as_bearer_and_nothing_else_changes() -> None:
    upstream = Upstream(provider="anthropic", credential="gw-real", kind="auth_token")
    assert forwarded_request_headers(upstream, CLIENT_HEADERS) == [
        (b"anthropic-version", b"2023-06-01"),
        (b"anthropic-beta", b"claude-code-20250219"),
        (b"authorization", b"Bearer gw-real"),
    ]


@pytest.mark.parametrize("provider", ["openai", "openrouter"])
def test_openai_style_keys_go_as_bearer(provider: str) -> None:
    upstream = Upstream(provider=provider, credential="sk-real")
    assert forwarded_request_headers(upstream, CLIENT_HEADERS)[-1] == (
        b"authorization",
        b"Bearer sk-real",
    )


def test_presented_credentials_reads_both_headers() -> None:
    assert presented_credentials(CLIENT_HEADERS) == [b"amelia-proxy-token"] * 2
    assert presented_credentials([(b"authorization", b"Basic abc")]) == []


def test_response_headers_keep_everything_but_hop_by_hop() -> None:
    headers = [
        (b"retry-after", b"7"),
        (b"transfer-encoding", b"chunked"),
        (b"Connection", b"close"),
        (b"anthropic-ratelimit-requests-remaining", b"0"),
        (b"content-encoding", b"gzip"),
    ]
    assert forwarded_response_headers(headers) == [
        (b"retry-after", b"7"),
        (b"anthropic-ratelimit-requests-remaining", b"0"),
        (b"content-encoding", b"gzip"),
    ]


def test_served_paths_and_targets() -> None:
    anthropic = Upstream(provider="anthropic", credential="k", base_url="https://gw.example/a/")
    assert anthropic.serves("POST", "/v1/messages")
    assert anthropic.serves("POST", "/v1/messages/count_tokens")
    assert not anthropic.serves("GET", "/v1/messages")
    assert not anthropic.serves("POST", "/v1/messages/batches")
    assert (
        anthropic.target("/v1/messages", "beta=true")
        == "https://gw.example/a/v1/messages?beta=true"
    )
    openrouter = Upstream(provider="openrouter", credential="k")
    assert openrouter.target("/chat/completions", "") == (
        "https://openrouter.ai/api/v1/chat/completions"
    )


@pytest.mark.parametrize(
    "fields",
    [
        {"provider": "anthropic", "credential": ""},
        {"provider": "anthropic", "credential": "two words"},
        {"provider": "anthropic", "credential": "k\r\nx-evil: 1"},
        {"provider": "openai", "credential": "k", "kind": "oauth_token"},
        {"provider": "openrouter", "credential": "k", "kind": "auth_token"},
        {"provider": "openai", "credential": "k", "base_url": "file:///etc/passwd"},
        {"provider": "openai", "credential": "k", "base_url": "https://x.example/v1?a=b"},
    ],
)
def test_bad_upstreams_are_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValidationError):
        Upstream(**fields)
