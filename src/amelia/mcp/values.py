"""Where the values of `{secret: NAME}` and `{input: name}` come from.

    sources = ValueSources.of(environment, mcp_secrets=inputs_text)
    value = sources.resolve(reference, where="mcp.servers.docs.env.DOCS_API_KEY")

A secret is a line `NAME=value` of the `mcp_secrets` input (one per line, as a workflow
writes `DOCS_API_KEY=${{ secrets.DOCS_API_KEY }}`), else a variable of the step's
environment whose name marks it as a credential (`*_TOKEN`, `*_API_KEY`, …: amelia takes
those out of its own environment at start, blanks them for every child process and masks
their values). Another variable is refused: it stays in every child's environment, so an
agent could read it. An input is the Action's own (`github_token`, …).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from amelia.errors import ConfigError
from amelia.mcp.config import ValueReference
from amelia.redaction import is_secret_name

__all__ = [
    "MCP_SECRETS_INPUT",
    "ValueSources",
    "mcp_secret_values",
    "parse_mcp_secrets",
]

MCP_SECRETS_INPUT = "mcp_secrets"
_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]{0,127})\s*=(.*)$")
_INPUT_PREFIX = "INPUT_"


def parse_mcp_secrets(text: str) -> dict[str, str]:
    """The `NAME=value` lines of the `mcp_secrets` input (blank lines and `#` comments
    skipped; the value is the rest of the line, spaces around it removed). Raises
    `ConfigError` naming the line, never its content."""
    found: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        if match is None:
            raise ConfigError(
                f"INPUT_MCP_SECRETS line {number}: must be NAME=value (a variable name, '=', "
                "the value)"
            )
        found[match.group(1)] = match.group(2).strip()
    return found


def mcp_secret_values(text: str) -> list[str]:
    """Every value in the `mcp_secrets` input's text, for masking: the value of each
    `NAME=value` line, and any other line whole (a value pasted without its name)."""
    values: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _LINE.match(line)
        value = match.group(2).strip() if match else line
        if value:
            values.append(value)
    return values


@dataclass(frozen=True, kw_only=True)
class ValueSources:
    """The secrets and inputs a run's servers may take values from."""

    secrets: Mapping[str, str] = field(default_factory=dict, repr=False)
    inputs: Mapping[str, str] = field(default_factory=dict, repr=False)
    environment: Mapping[str, str] = field(default_factory=dict, repr=False)
    """The step's other variables: only to say why one of them cannot be used."""

    @classmethod
    def of(cls, environment: Mapping[str, str], *, mcp_secrets: str = "") -> ValueSources:
        """From the runner's environment (credentials put back) and the `mcp_secrets`
        input's text. Raises `ConfigError` for a malformed `mcp_secrets`."""
        inputs = {
            name[len(_INPUT_PREFIX) :].lower(): value
            for name, value in environment.items()
            if name.upper().startswith(_INPUT_PREFIX)
        }
        variables = {
            name: value
            for name, value in environment.items()
            if value and is_secret_name(name) and not name.upper().startswith(_INPUT_PREFIX)
        }
        return cls(
            secrets={**variables, **parse_mcp_secrets(mcp_secrets)},
            inputs=inputs,
            environment=environment,
        )

    def resolve(self, value: str | ValueReference, *, where: str) -> str:
        """The text `value` stands for. Raises `ConfigError` naming `where` and the source
        that is missing, never a value."""
        if isinstance(value, str):
            return value
        if value.secret is not None:
            found = self.secrets.get(value.secret, "")
            if not found:
                raise ConfigError(f"{where}: {self._missing_secret(value.secret)}")
            return value.prefix + found
        assert value.input is not None
        if value.input not in self.inputs:
            raise ConfigError(f"{where}: the Action has no input named {value.input}")
        found = self.inputs[value.input]
        if not found:
            raise ConfigError(f"{where}: the input {value.input} is empty")
        return value.prefix + found

    def _missing_secret(self, name: str) -> str:
        if self.environment.get(name) and not is_secret_name(name):
            return (
                f"the secret {name} is a variable of the step whose name does not mark it "
                "as a credential, so every agent could read it: pass it in the mcp_secrets "
                f"input instead ({name}=${{{{ secrets.{name} }}}})"
            )
        return (
            f"the secret {name} is not set: add the line {name}=${{{{ secrets.{name} }}}} to "
            "the mcp_secrets input"
        )
