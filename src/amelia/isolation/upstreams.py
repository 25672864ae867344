"""The model APIs the credential proxy serves, and how a request to one is rewritten.

Each upstream is reached under its own prefix of the proxy (`/anthropic`, `/openai`,
`/openrouter`); only the API's generation endpoints are served, by exact path. The
client's credential (the proxy token) is taken off and the real one put on:

- Anthropic API key: `x-api-key: <key>`.
- Claude Code OAuth token (CLAUDE_CODE_OAUTH_TOKEN, from `claude setup-token`):
  `Authorization: Bearer <token>` and the `oauth-2025-04-20` beta in `anthropic-beta`,
  as the Claude Code CLI itself sends it. The CLI is given the proxy token *as* its OAuth
  token, so it sends the rest of its OAuth request unchanged and only the bearer changes.
- A gateway's token (ANTHROPIC_AUTH_TOKEN, for an ANTHROPIC_BASE_URL gateway):
  `Authorization: Bearer <token>`, nothing else changed.
- OpenAI and OpenRouter keys: `Authorization: Bearer <key>`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr, field_validator

__all__ = [
    "ANTHROPIC_OAUTH_BETA",
    "DEFAULT_BASE_URLS",
    "CredentialKind",
    "Provider",
    "Upstream",
    "forwarded_request_headers",
    "forwarded_response_headers",
    "presented_credentials",
    "served_paths",
]

Provider = Literal["anthropic", "openai", "openrouter"]
CredentialKind = Literal["api_key", "oauth_token", "auth_token"]

ANTHROPIC_OAUTH_BETA: Final = "oauth-2025-04-20"
"""The beta the Messages API requires with a Claude Code OAuth token."""

DEFAULT_BASE_URLS: Final[dict[Provider, str]] = {
    "anthropic": "https://api.anthropic.com",
    "openai": "https://api.openai.com/v1",
    "openrouter": "https://openrouter.ai/api/v1",
}

_SERVED: Final[dict[Provider, frozenset[tuple[str, str]]]] = {
    "anthropic": frozenset({("POST", "/v1/messages"), ("POST", "/v1/messages/count_tokens")}),
    "openai": frozenset({("POST", "/responses"), ("POST", "/chat/completions")}),
    "openrouter": frozenset({("POST", "/chat/completions"), ("POST", "/responses")}),
}

_HOP_BY_HOP: Final = frozenset(
    {
        b"connection",
        b"keep-alive",
        b"proxy-authenticate",
        b"proxy-authorization",
        b"proxy-connection",
        b"te",
        b"trailer",
        b"trailers",
        b"transfer-encoding",
        b"upgrade",
    }
)
_CREDENTIAL_HEADERS: Final = frozenset({b"authorization", b"x-api-key"})
_RECOMPUTED: Final = frozenset({b"host", b"content-length"})

Headers = list[tuple[bytes, bytes]]


class Upstream(BaseModel):
    """One model API: its real base URL and the credential amelia holds for it."""

    model_config = ConfigDict(frozen=True)

    provider: Provider
    credential: SecretStr
    kind: CredentialKind = "api_key"
    base_url: str = ""

    @field_validator("credential")
    @classmethod
    def _credential_is_set(cls, value: SecretStr) -> SecretStr:
        secret = value.get_secret_value()
        if not secret.strip() or any(ord(char) < 0x21 or ord(char) > 0x7E for char in secret):
            raise ValueError("the credential must be a non-empty header-safe token")
        return value

    @field_validator("base_url")
    @classmethod
    def _base_url_is_http(cls, value: str) -> str:
        if not value:
            return value
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError(f"the base URL must be an http(s) URL, not {value!r}")
        if parts.query or parts.fragment:
            raise ValueError("the base URL must not carry a query or fragment")
        return value.rstrip("/")

    def model_post_init(self, context: object, /) -> None:
        if self.kind != "api_key" and self.provider != "anthropic":
            raise ValueError(f"only the Anthropic API takes an {self.kind}, {self.provider} a key")

    @property
    def effective_base_url(self) -> str:
        return self.base_url or DEFAULT_BASE_URLS[self.provider]

    @property
    def prefix(self) -> str:
        """Where the proxy serves this upstream: `/anthropic`, `/openai`, `/openrouter`."""
        return f"/{self.provider}"

    def serves(self, method: str, suffix: str) -> bool:
        """True when `method suffix` (the path after the prefix) is a generation endpoint."""
        return (method, suffix) in _SERVED[self.provider]

    def target(self, suffix: str, query: str) -> str:
        """The real URL for `suffix` (already checked with `serves`) and its query."""
        url = self.effective_base_url + suffix
        return f"{url}?{query}" if query else url

    def credential_headers(self) -> Headers:
        secret = self.credential.get_secret_value().encode("ascii")
        if self.provider == "anthropic" and self.kind == "api_key":
            return [(b"x-api-key", secret)]
        return [(b"authorization", b"Bearer " + secret)]


def served_paths(provider: Provider) -> frozenset[tuple[str, str]]:
    """(method, path under the prefix) pairs the proxy forwards for `provider`."""
    return _SERVED[provider]


def presented_credentials(headers: Iterable[tuple[bytes, bytes]]) -> list[bytes]:
    """What a client offered as its credential: `x-api-key` values and bearer tokens."""
    offered: list[bytes] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"x-api-key":
            offered.append(value.strip())
        elif lowered == b"authorization":
            scheme, _, token = value.strip().partition(b" ")
            if scheme.lower() == b"bearer":
                offered.append(token.strip())
    return offered


def forwarded_request_headers(
    upstream: Upstream, headers: Iterable[tuple[bytes, bytes]]
) -> Headers:
    """The client's headers without hop-by-hop ones and its credential, plus the real one."""
    kept: Headers = []
    for name, value in headers:
        lowered = name.lower()
        if lowered in _HOP_BY_HOP or lowered in _CREDENTIAL_HEADERS or lowered in _RECOMPUTED:
            continue
        kept.append((lowered, value))
    if upstream.kind == "oauth_token":
        kept = _with_oauth_beta(kept)
    return kept + upstream.credential_headers()


def forwarded_response_headers(headers: Iterable[tuple[bytes, bytes]]) -> Headers:
    """The upstream's response headers without hop-by-hop ones (framing is redone)."""
    return [(name, value) for name, value in headers if name.lower() not in _HOP_BY_HOP]


def _with_oauth_beta(headers: Headers) -> Headers:
    beta = ANTHROPIC_OAUTH_BETA.encode("ascii")
    betas = [
        item.strip()
        for name, value in headers
        if name == b"anthropic-beta"
        for item in value.split(b",")
        if item.strip()
    ]
    if beta in betas:
        return headers
    others = [(name, value) for name, value in headers if name != b"anthropic-beta"]
    return [*others, (b"anthropic-beta", b",".join([*betas, beta]))]
