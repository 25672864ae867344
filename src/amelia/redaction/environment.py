"""The environment a model CLI or an agent's tool sees: everything but the secrets.

A tool an agent runs executes commands the model chose, and the model reads untrusted
text, so no credential may be visible to it. Which variables are secrets is decided by
their names alone (`names.is_secret_name`): the five secret inputs and variables whose
name says they hold a credential; every other input (`INPUT_TRIGGER_PHRASE=/amelia`, ...)
is plain text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from amelia.redaction.names import is_secret_name

__all__ = [
    "CLAUDE_CONNECTION_VARS",
    "blanking_overrides",
    "scrubbed_environment",
    "secret_values",
]

CLAUDE_CONNECTION_VARS = (
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
)
"""How the Claude Code CLI reaches its model. A driver takes them from the credentials it
is handed (amelia hands over the credential proxy's URL and per-run token), never from the
environment it inherits, so a real key in amelia's environment cannot reach the CLI."""


def scrubbed_environment(base: Mapping[str, str], *, allow: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `base` without secrets, except names in `allow`."""
    allowed = set(allow)
    return {
        name: value for name, value in base.items() if name in allowed or not is_secret_name(name)
    }


def blanking_overrides(base: Mapping[str, str], *, allow: Iterable[str] = ()) -> dict[str, str]:
    """Overrides that blank every secret of `base`, for SDKs that can only add variables.

    claude-agent-sdk starts its CLI with a copy of the process environment and applies
    `options.env` on top, so the only way to hide a variable is to override it with an
    empty value.
    """
    allowed = set(allow)
    return {name: "" for name in base if name not in allowed and is_secret_name(name)}


def secret_values(base: Mapping[str, str], *, min_length: int = 6) -> list[str]:
    """Values of the secret variables of `base`, longest first, for redaction. Shorter
    values are left alone: masking a 3-letter value would mask ordinary words."""
    values = {
        value
        for name, value in base.items()
        if is_secret_name(name) and len(value.strip()) >= min_length
    }
    return sorted(values, key=len, reverse=True)
