"""Which environment variables hold a credential, by name: the one rule for every use
(restarting without them, scrubbing children's environments, redacting their values).

A runner passes every input of `action.yml` as `INPUT_<NAME>`, with its default, so an
input is a secret only when it is one of the secret inputs: `/amelia`, `docs/plans` or
`cli:claude` are ordinary words. Any other variable is a secret when its name says so
(`GITHUB_TOKEN`, `ANTHROPIC_API_KEY`, `ACTIONS_RUNTIME_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
`PGPASSWORD`, `MYSQL_PWD`, `CI_JOB_JWT`, `SENTRY_DSN`, `DATABASE_URL`, `STRIPE_SK`, ...): a
credential word on its own or glued to the word before it, a key that opens something, or
a last word that says the value is a password, a signed token or a connection string. The
rules read the name only, never the value's length or words, so no ordinary value is
masked because it looks like something.
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

# A credential word anywhere in the name, on its own or glued to the word before it
# (NODE_AUTH_TOKEN, GH_PAT, PGPASSWORD, NPMTOKEN, CLIENTSECRET), but not the start of a
# longer word: MAX_THINKING_TOKENS and TOKENIZERS_PARALLELISM are counts and switches.
_SECRET_WORD: Final = re.compile(
    r"(?:^|_)(?:SECRETS|CREDENTIAL|CREDENTIALS|PAT|AUTH|COOKIE|WEBHOOK)(?:_|$)"
    r"|(?:TOKEN|SECRET|APIKEY)(?:_|$)"
    r"|PASSWORD|PASSWD|PASSPHRASE"
)
# A key that opens something, its kind on its own or glued to KEY: AWS_SECRET_ACCESS_KEY,
# RAILS_MASTER_KEY, SUPABASE_SERVICE_KEY, MY_LICENSEKEY.
_SECRET_KEY: Final = re.compile(
    r"(?:API|ACCESS|PRIVATE|SECRET|SIGNING|CLIENT|MASTER|ENCRYPTION|DEPLOY|SSH|GPG|LICENSE"
    r"|SERVICE|ACCOUNT|STORAGE|APP|SESSION|SHARED|HMAC|AUTH)_?KEYS?(?:_|$)"
)
# What the last word says the value is: a signed token (CI_JOB_JWT, CI_JOB_JWT_V2), a
# connection string with its password (SENTRY_DSN), a password (MYSQL_PWD, SMTP_PASS,
# LDAP_PW) or a secret key (STRIPE_SK) of what the words before it name. The shell's own
# PWD and OLDPWD are directories: PWD counts only after a word of its own.
_SECRET_LAST_WORD: Final = re.compile(r"(?:JWT(?:_V[0-9]+)?|DSN|.+_(?:PWD|PASS|PW|SK))$")
# A database or broker URL carries its password (DATABASE_URL, REDIS_URL, MONGODB_URI,
# CELERY_BROKER_URL, AZURE_STORAGE_CONNECTION_STRING).
_SECRET_URL: Final = re.compile(
    r"(?:^|_)(?:DATABASE|DB|POSTGRES|POSTGRESQL|PG|MYSQL|MARIADB|MONGO|MONGODB|REDIS|RABBITMQ"
    r"|AMQP|BROKER|CONNECTION|CONN)_(?:URL|URI|STRING|STR)(?:_|$)"
)
# Any other name ending in _KEY is a key to something (STRIPE_KEY, DD_APP_KEY, MAPS_KEY)
# unless the word before it names a key that opens nothing: a lookup or a public key.
_ANY_KEY: Final = re.compile(r"^(?:.*_)?(?P<kind>[A-Z0-9]+)_KEYS?$")
_ORDINARY_KEYS: Final = frozenset(
    {
        "CACHE",
        "CONCURRENCY",
        "DEDUP",
        "FOREIGN",
        "GROUP",
        "HOST",
        "IDEMPOTENCY",
        "LOOKUP",
        "OBJECT",
        "PARTITION",
        "PRIMARY",
        "PUBLIC",
        "PUBLISHABLE",
        "ROUTING",
        "SHARD",
        "SORT",
    }
)


def is_secret_name(name: str) -> bool:
    """True when the variable `name` holds a credential (see the module's rules)."""
    upper = name.upper()
    if upper.startswith(_INPUT_PREFIX):
        return upper in SECRET_INPUTS
    if any(
        rule.search(upper) for rule in (_SECRET_WORD, _SECRET_KEY, _SECRET_LAST_WORD, _SECRET_URL)
    ):
        return True
    key = _ANY_KEY.match(upper)
    return key is not None and key.group("kind") not in _ORDINARY_KEYS


def secret_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The credential-holding variables of `environ` with a non-empty value."""
    return {name: value for name, value in environ.items() if value and is_secret_name(name)}
