"""Whether a built-in driver can reach its model, asked before a run starts.

Without it, a missing key shows only once the model refuses the first request (Claude
Code's "Not logged in · Please run /login"), after the run began. This names the variable
to set instead. It reads only the `DriverEnvironment` it is handed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from amelia.drivers.runtime import DriverEnvironment
from amelia.errors import DriverError

__all__ = ["API_DRIVER_PROVIDERS", "CLAUDE_CREDENTIALS", "DEFAULT_API_MODEL", "missing_credentials"]

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
"""The model of an api driver when none is chosen."""


def missing_credentials(
    key: str,
    model: str | None,
    environment: DriverEnvironment,
    *,
    platform: str = sys.platform,
) -> str | None:
    """Why the driver `key` cannot reach `model` (None: the driver's default) with
    `environment`, naming what to set; None when it can, or when `key` is not a built-in
    driver (its own checks apply)."""
    if key in ("cli:claude", "cli"):
        return _claude_code(environment, platform)
    if key in API_DRIVER_PROVIDERS:
        return _api_model(API_DRIVER_PROVIDERS[key], model, environment)
    return None


def _claude_code(environment: DriverEnvironment, platform: str) -> str | None:
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
    provider: str | None, model: str | None, environment: DriverEnvironment
) -> str | None:
    from amelia.drivers.api.providers import PROVIDERS, parse_model_name

    chosen = model or DEFAULT_API_MODEL
    if provider is not None and ":" not in chosen:
        chosen = f"{provider}:{chosen}"
    try:
        name = parse_model_name(chosen)
    except DriverError as error:
        return error.message
    variable = PROVIDERS[name.provider].key_var
    if environment.lookup(variable):
        return None
    return f"{variable} is not set: set it to use '{name.qualified}' with the api driver"
