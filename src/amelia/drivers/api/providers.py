"""From a model string (`openai:gpt-4o`, `openrouter:vendor/model`) to a pydantic-ai model.

pydantic-ai's own providers talk to the APIs; this only picks one, checks that its key is
set before any request, and honours OPENAI_BASE_URL / OPENROUTER_BASE_URL. Keys and base
URLs come from the variables the caller hands over, never from the process environment.
A base URL of amelia's credential proxy running in this process and event loop is reached
through the proxy's in-process transport instead of its socket (same token, same answers).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass

from openai import AsyncOpenAI, DefaultAsyncHttpxClient
from pydantic_ai.models import Model
from pydantic_ai.models.openai import OpenAIChatModel, OpenAIResponsesModel
from pydantic_ai.models.openrouter import OpenRouterModel
from pydantic_ai.providers.openai import OpenAIProvider
from pydantic_ai.providers.openrouter import OpenRouterProvider

from amelia.errors import DriverError, DriverInputError
from amelia.isolation.proxy import in_process_transport

__all__ = [
    "DEFAULT_PROVIDER",
    "OPENROUTER_DEFAULT_BASE_URL",
    "PROVIDERS",
    "ModelName",
    "ProviderSpec",
    "open_model",
    "parse_model_name",
]


OPENROUTER_DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"


@dataclass(frozen=True)
class ProviderSpec:
    """How to reach one provider."""

    prefix: str
    key_var: str
    base_url_var: str
    default_base_url: str | None
    wire: str


PROVIDERS: dict[str, ProviderSpec] = {
    "openai": ProviderSpec(
        "openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", None, "Responses API (/v1/responses)"
    ),
    "openai-chat": ProviderSpec(
        "openai-chat",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        None,
        "chat completions (/v1/chat/completions)",
    ),
    "openrouter": ProviderSpec(
        "openrouter",
        "OPENROUTER_API_KEY",
        "OPENROUTER_BASE_URL",
        OPENROUTER_DEFAULT_BASE_URL,
        "chat completions (/v1/chat/completions)",
    ),
}
DEFAULT_PROVIDER = "openai"


@dataclass(frozen=True)
class ModelName:
    """A model string split into its provider prefix and the provider's model name."""

    provider: str
    name: str

    @property
    def qualified(self) -> str:
        return f"{self.provider}:{self.name}"


def parse_model_name(model: str) -> ModelName:
    """`provider:name`, or a bare name meaning openai; unknown prefixes are refused."""
    if not model or not model.strip():
        raise DriverInputError("The model name is empty")
    provider, separator, name = model.partition(":")
    if not separator:
        return ModelName(DEFAULT_PROVIDER, model)
    if provider not in PROVIDERS:
        supported = ", ".join(f"{p}:" for p in PROVIDERS)
        raise DriverInputError(
            f"Unknown model provider prefix '{provider}:' in '{model}'. Supported: {supported}"
        )
    if not name:
        raise DriverInputError(f"The model name after '{provider}:' is empty")
    return ModelName(provider, name)


@asynccontextmanager
async def open_model(
    model: ModelName,
    *,
    max_retries: int,
    timeout_seconds: float | None,
    environ: Mapping[str, str],
) -> AsyncIterator[Model]:
    """A pydantic-ai model with its own AsyncOpenAI client, closed on exit.

    The key is checked before any request. pydantic-ai leaves a client it was handed open,
    and an unclosed pool complains once its event loop is gone, so we close it ourselves.
    """
    spec = PROVIDERS[model.provider]
    api_key = environ.get(spec.key_var, "").strip()
    if not api_key:
        raise DriverError(
            f"{spec.key_var} is not set: set it to use '{model.qualified}' with the api driver"
        )
    base_url = environ.get(spec.base_url_var, "").strip() or spec.default_base_url
    transport = None if base_url is None else in_process_transport(base_url)
    # openai's own default client, only with the transport to the proxy in this process;
    # closing the AsyncOpenAI client closes it.
    http_client = None if transport is None else DefaultAsyncHttpxClient(transport=transport)
    client = AsyncOpenAI(
        api_key=api_key,
        base_url=base_url,
        max_retries=max_retries,
        timeout=timeout_seconds if timeout_seconds is not None else 600.0,
        http_client=http_client,
    )
    try:
        built: Model
        if model.provider == "openrouter":
            built = OpenRouterModel(model.name, provider=OpenRouterProvider(openai_client=client))
        elif model.provider == "openai-chat":
            built = OpenAIChatModel(model.name, provider=OpenAIProvider(openai_client=client))
        else:
            built = OpenAIResponsesModel(model.name, provider=OpenAIProvider(openai_client=client))
        yield built
    finally:
        await client.close()
