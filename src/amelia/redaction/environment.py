"""The environment a model CLI or an agent's tool sees: everything but the secrets.

A tool an agent runs executes commands the model chose, and the model reads untrusted
text, so no credential it does not need may be visible to it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

__all__ = [
    "MODEL_CONNECTION_VARS",
    "blanking_overrides",
    "is_secret_name",
    "scrubbed_environment",
    "secret_values",
]

_SECRET_PREFIXES = ("INPUT_", "ACTIONS_", "GITHUB_TOKEN", "GH_")
_SECRET_NAME = re.compile(
    r"(TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|PRIVATE|API_?KEY|ACCESS_?KEY|AUTH)",
    re.IGNORECASE,
)
_ALWAYS_SAFE = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "TERM", "TZ", "TMPDIR", "USER"})

MODEL_CONNECTION_VARS = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_OAUTH_TOKEN",
)
"""What the Claude Code CLI needs to reach its model; nothing else secret passes."""


def is_secret_name(name: str) -> bool:
    """True when an environment variable's name marks it as a credential or an input."""
    if name in _ALWAYS_SAFE:
        return False
    upper = name.upper()
    return upper.startswith(_SECRET_PREFIXES) or bool(_SECRET_NAME.search(upper))


def scrubbed_environment(base: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """A copy of `base` without secrets, except names in `allow`."""
    allowed = set(allow)
    return {
        name: value for name, value in base.items() if name in allowed or not is_secret_name(name)
    }


def blanking_overrides(base: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """Overrides that blank every secret of `base`, for SDKs that can only add variables.

    claude-agent-sdk starts its CLI with a copy of the process environment and applies
    `options.env` on top, so the only way to hide a variable is to override it with an
    empty value.
    """
    allowed = set(allow)
    return {name: "" for name in base if name not in allowed and is_secret_name(name)}


def secret_values(base: Mapping[str, str], min_length: int = 6) -> list[str]:
    """Values of secret-looking variables of `base`, longest first, for redaction."""
    values = {
        value
        for name, value in base.items()
        if is_secret_name(name) and len(value.strip()) >= min_length
    }
    return sorted(values, key=len, reverse=True)
