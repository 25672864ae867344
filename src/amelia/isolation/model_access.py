"""How the drivers reach their models: through the credential proxy, never with a real key.

    upstreams = model_upstreams(settings.model_credentials(), settings.environ)
    async with model_access(upstreams) as access:
        DriverEnvironment(credentials=access.environment, ...)

`model_upstreams` turns the model credentials amelia holds into the proxy's upstreams,
each with the base URL the user chose (ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
OPENROUTER_BASE_URL) or the API's own; a credential or URL the proxy cannot use is one
`ConfigError` naming the variable, never its value. `model_access` runs the proxy for the
run and gives the drivers what they use in place of the real ones: the Claude Code CLI
the proxy's Anthropic URL and the token as its key (the other key variables blank),
pydantic-ai's providers the proxy's OpenAI / OpenRouter URL and the token as their key.
The real credentials stay in this process's memory, in the proxy.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from pydantic import ValidationError

from amelia.errors import ConfigError
from amelia.isolation.upstreams import CredentialKind, Provider, Upstream

if TYPE_CHECKING:
    from amelia.isolation.proxy import ExchangeObserver

__all__ = ["ModelAccess", "model_access", "model_upstreams"]

_ANTHROPIC_CREDENTIALS: Final[tuple[tuple[str, CredentialKind], ...]] = (
    ("ANTHROPIC_AUTH_TOKEN", "auth_token"),
    ("ANTHROPIC_API_KEY", "api_key"),
    ("CLAUDE_CODE_OAUTH_TOKEN", "oauth_token"),
)
"""In Claude Code's own order of precedence: a gateway token, an API key, an OAuth token."""
_KEYED_PROVIDERS: Final[tuple[tuple[Provider, str, str], ...]] = (
    ("anthropic", "", "ANTHROPIC_BASE_URL"),
    ("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    ("openrouter", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL"),
)


@dataclass(frozen=True, kw_only=True)
class ModelAccess:
    """What the drivers get while the proxy runs."""

    environment: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The model connection variables for `DriverEnvironment.credentials`: the proxy's
    base URLs and its token in place of every key (empty without upstreams)."""
    token: str | None = field(default=None, repr=False)
    """The proxy's per-run token (None without upstreams); redact it like a credential."""


def model_upstreams(credentials: Mapping[str, str], environ: Mapping[str, str]) -> list[Upstream]:
    """An upstream per model API `credentials` holds a key for (Anthropic: the first of
    a gateway token, an API key, an OAuth token), at the base URL `environ` names."""
    upstreams: list[Upstream] = []
    for provider, key_variable, url_variable in _KEYED_PROVIDERS:
        if provider == "anthropic":
            chosen = [(v, kind) for v, kind in _ANTHROPIC_CREDENTIALS if credentials.get(v)]
        else:
            chosen = [(key_variable, "api_key")] if credentials.get(key_variable) else []
        if not chosen:
            continue
        variable, kind = chosen[0]
        upstreams.append(
            _upstream(provider, variable, credentials[variable], kind, url_variable, environ)
        )
    return upstreams


def _upstream(
    provider: Provider,
    variable: str,
    credential: str,
    kind: CredentialKind,
    url_variable: str,
    environ: Mapping[str, str],
) -> Upstream:
    base_url = environ.get(url_variable, "").strip()
    try:
        return Upstream(provider=provider, credential=credential, kind=kind, base_url=base_url)
    except ValidationError as error:
        # pydantic's message would quote the value: name the variable and the rule only.
        fields = {str(problem["loc"][0]) for problem in error.errors() if problem["loc"]}
        if "base_url" in fields:
            raise ConfigError(
                f"{url_variable} must be an http(s) URL without a query, like "
                "https://api.example.com"
            ) from None
        raise ConfigError(
            f"{variable} cannot be used as a credential: it must be one line of printable "
            "ASCII without spaces"
        ) from None


@asynccontextmanager
async def model_access(
    upstreams: Sequence[Upstream], *, observer: ExchangeObserver | None = None
) -> AsyncIterator[ModelAccess]:
    """Run the credential proxy for `upstreams` while the context lasts (nothing without
    upstreams: a driver then reaches its model as its own configuration says); `observer`
    sees every exchange it forwards."""
    if not upstreams:
        yield ModelAccess()
        return
    from amelia.isolation.proxy import CredentialProxy

    async with CredentialProxy(upstreams, observer=observer) as proxy:
        environment: dict[str, str] = {}
        if any(upstream.provider == "anthropic" for upstream in upstreams):
            environment.update(proxy.claude_environment())
        environment.update(proxy.openai_environment())
        yield ModelAccess(environment=environment, token=proxy.token)
