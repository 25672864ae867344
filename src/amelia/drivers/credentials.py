"""Whether a built-in driver can reach its model, asked before a run starts.

Without it, a missing key shows only once the model refuses the first request (Claude
Code's "Not logged in · Please run /login"), after the run began. This names the variable
to set instead. It reads only the `DriverEnvironment` it is handed.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

from amelia.drivers.runtime import DriverEnvironment
from amelia.errors import DriverInputError

__all__ = [
    "API_DRIVER_PROVIDERS",
    "CLAUDE_CREDENTIALS",
    "DEFAULT_API_MODEL",
    "DEFAULT_API_MODELS",
    "default_api_model",
    "missing_credentials",
    "model_for_key",
]

CLAUDE_CREDENTIALS = ("ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN")
"""Variables any one of which lets Claude Code reach its model."""
_CLAUDE_CLOUDS = ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
"""Claude Code on Amazon Bedrock or Google Vertex: those clouds' own credentials apply."""
API_DRIVER_PROVIDERS: dict[str, str | None] = {
    "api:openai": "openai",
    "api:openrouter": "openrouter",
    "api": None,
}
"""The provider each api driver key puts before a bare model name (None: the model's own)."""
DEFAULT_API_MODEL = "openai:gpt-4o"
"""The model of an `ApiDriver` made without a driver key when none is chosen."""
DEFAULT_API_MODELS: dict[str, str] = {
    "api:openai": "openai:gpt-4o",
    "api:openrouter": "openrouter:openai/gpt-4o",
    "api": DEFAULT_API_MODEL,
}
"""The model of each api driver key when none is chosen: one of the key's own provider, so
`api:openrouter` alone needs only OPENROUTER_API_KEY."""


def default_api_model(key: str) -> str:
    """The model the api driver `key` runs when none is chosen."""
    return DEFAULT_API_MODELS.get(key, DEFAULT_API_MODEL)


_KEY_PROVIDERS: dict[str, tuple[str, ...]] = {
    "api:openai": ("openai", "openai-chat"),
    "api:openrouter": ("openrouter",),
}
"""The model prefixes a provider-specific api driver key runs (`api` runs any)."""


def model_for_key(key: str, model: str | None) -> str:
    """The model the api driver `key` runs for `model` (None: the key's default): a bare
    name gets the key's provider. Raises `DriverInputError` (a `ValueError`) for a model
    of another provider than the key's (`api:openrouter` with `openai:gpt-4o`)."""
    provider = API_DRIVER_PROVIDERS.get(key)
    chosen = default_api_model(key) if model is None else model
    if provider is None or not chosen.strip():
        return chosen
    prefix, separator, _name = chosen.partition(":")
    if not separator:
        return f"{provider}:{chosen}"
    accepted = _KEY_PROVIDERS.get(key, (provider,))
    known = {name for names in _KEY_PROVIDERS.values() for name in names}
    if prefix in known and prefix not in accepted:
        runs = " or ".join(f"{name}:" for name in accepted)
        raise DriverInputError(
            f"The model '{chosen}' is not a model of the {key} driver, which runs {runs} "
            f"models (a bare name means {provider}:<name>)"
        )
    return chosen  # an unknown prefix is refused by the driver, naming those it knows


def missing_credentials(
    key: str,
    model: str | None,
    environment: DriverEnvironment,
    *,
    platform: str = sys.platform,
    inputs: Mapping[str, str] | None = None,
) -> str | None:
    """Why the driver `key` cannot reach `model` (None: the driver's default) with
    `environment`, naming what to set; None when it can, or when `key` is not a built-in
    driver (its own checks apply).

    `inputs` maps a key's variable to the Action input that sets it
    (`OPENROUTER_API_KEY` → `openrouter_api_key`): in the Action the message names the
    input the workflow sets, not the variable the SDK reads."""
    names = dict(inputs or {})
    if key in ("cli:claude", "cli"):
        return _claude_code(environment, platform, names)
    if key in API_DRIVER_PROVIDERS:
        return _api_model(key, model, environment, names)
    return None


def _claude_code(
    environment: DriverEnvironment, platform: str, inputs: Mapping[str, str]
) -> str | None:
    if any(environment.lookup(name) for name in CLAUDE_CREDENTIALS):
        return None
    if any(environment.lookup(name) not in ("", "0", "false") for name in _CLAUDE_CLOUDS):
        return None
    if platform == "darwin":
        return None  # `claude /login` keeps its credentials in the keychain, unread here
    home = environment.inherited.get("HOME", "")
    folder = environment.lookup("CLAUDE_CONFIG_DIR") or (f"{home}/.claude" if home else "")
    if folder and _logged_in(Path(folder)):
        return None
    api_key, oauth = inputs.get("ANTHROPIC_API_KEY"), inputs.get("CLAUDE_CODE_OAUTH_TOKEN")
    if api_key and oauth:
        return (
            f"Claude Code has no credentials: set the `{api_key}` input (an Anthropic API "
            f"key) or the `{oauth}` input (made by `claude setup-token`) from a secret"
        )
    return (
        "Claude Code has no credentials: set ANTHROPIC_API_KEY (an Anthropic API key) or "
        "CLAUDE_CODE_OAUTH_TOKEN (made by `claude setup-token`), or log in with "
        "`claude /login`"
    )


def _logged_in(folder: Path) -> bool:
    """`claude /login`'s credentials, or an `apiKeyHelper` in Claude Code's settings."""
    if (folder / ".credentials.json").is_file():
        return True
    try:
        return "apiKeyHelper" in (folder / "settings.json").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False


def _api_model(
    key: str, model: str | None, environment: DriverEnvironment, inputs: Mapping[str, str]
) -> str | None:
    from amelia.drivers.api.providers import PROVIDERS, parse_model_name

    try:
        name = parse_model_name(model_for_key(key, model or None))
    except DriverInputError as error:
        return error.message
    variable = PROVIDERS[name.provider].key_var
    if environment.lookup(variable):
        return None
    if variable in inputs:
        return (
            f"the `{inputs[variable]}` input is not set: set it from a secret "
            f"(`{inputs[variable]}: ${{{{ secrets.{variable} }}}}`) to use "
            f"'{name.qualified}' with the {key} driver"
        )
    return f"{variable} is not set: set it to use '{name.qualified}' with the api driver"
