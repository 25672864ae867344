"""What counts as a secret and how it is kept out of sight: masking text we post or log, and
the environments handed to child processes. A leaf: it imports nothing else from amelia, so
the git layer, the drivers and the GitHub layer can all use it."""

from amelia.redaction.environment import (
    CLAUDE_CONNECTION_VARS,
    blanking_overrides,
    scrubbed_environment,
    secret_values,
)
from amelia.redaction.names import SECRET_INPUTS, is_secret_name, secret_variables
from amelia.redaction.redactor import MASK, NeedleMemory, Redactor

__all__ = [
    "CLAUDE_CONNECTION_VARS",
    "MASK",
    "SECRET_INPUTS",
    "NeedleMemory",
    "Redactor",
    "blanking_overrides",
    "is_secret_name",
    "scrubbed_environment",
    "secret_values",
    "secret_variables",
]
