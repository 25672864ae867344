"""The repository's configuration file, `.github/amelia.yml`: its model, how it is read
from a trusted commit, and how it shapes the run's profile (see docs/configuration.md)."""

from amelia.repo_config.loading import (
    FileReader,
    RepoConfigError,
    TrustedFiles,
    load_trusted_files,
    parse_repo_config,
)
from amelia.repo_config.model import DEFAULT_CONFIG_FILE, RepoConfig
from amelia.repo_config.profile import (
    INPUT_DEFAULTS,
    configure_profile,
    explicit_inputs,
    instruction_files_for,
)

__all__ = [
    "DEFAULT_CONFIG_FILE",
    "INPUT_DEFAULTS",
    "FileReader",
    "RepoConfig",
    "RepoConfigError",
    "TrustedFiles",
    "configure_profile",
    "explicit_inputs",
    "instruction_files_for",
    "load_trusted_files",
    "parse_repo_config",
]
