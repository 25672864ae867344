"""Which environment variables hold a credential, by name: the one rule for every use
(restarting without them, scrubbing children's environments, redacting their values).

A runner passes every input of `action.yml` as `INPUT_<NAME>`, with its default, so an
input is a secret only when it is one of the secret inputs: `/amelia`, `docs/plans` or
`cli:claude` are ordinary words. Any other variable is a secret when its name says so
(`GITHUB_TOKEN`, `ANTHROPIC_API_KEY`, `ACTIONS_RUNTIME_TOKEN`, `AWS_SECRET_ACCESS_KEY`, ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["SECRET_INPUTS", "is_secret_name", "secret_variables"]

SECRET_INPUTS: Final = frozenset(
    {
        "INPUT_GITHUB_TOKEN",
        "INPUT_ANTHROPIC_API_KEY",
        "INPUT_CLAUDE_CODE_OAUTH_TOKEN",
        "INPUT_OPENAI_API_KEY",
        "INPUT_OPENROUTER_API_KEY",
        "INPUT_MCP_SECRETS",
    }
)
"""The inputs of `action.yml` that hold credentials; every other input is plain text."""

_INPUT_PREFIX: Final = "INPUT_"

# Whole words of the name (split on `_`), so MAX_THINKING_TOKENS or GIT_AUTHOR_NAME are not
# secrets while NODE_AUTH_TOKEN, GH_PAT and AWS_SECRET_ACCESS_KEY are.
_SECRET_WORD: Final = re.compile(
    r"(?:^|_)(?:TOKEN|SECRET|SECRETS|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|CREDENTIALS"
    r"|APIKEY|PAT|AUTH|COOKIE)(?:_|$)"
)
_SECRET_KEY: Final = re.compile(
    r"(?:^|_)(?:API|ACCESS|PRIVATE|SECRET|SIGNING|CLIENT|MASTER|ENCRYPTION|DEPLOY|SSH|GPG)"
    r"_?KEY(?:_|$)"
)


def is_secret_name(name: str) -> bool:
    """True when the variable `name` holds a credential (see the module's rules)."""
    upper = name.upper()
    if upper.startswith(_INPUT_PREFIX):
        return upper in SECRET_INPUTS
    return bool(_SECRET_WORD.search(upper) or _SECRET_KEY.search(upper))


def secret_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The credential-holding variables of `environ` with a non-empty value."""
    return {name: value for name, value in environ.items() if value and is_secret_name(name)}
