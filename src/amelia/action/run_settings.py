"""The settings one Action run uses, where the inputs, the repository's configuration file
and the environment meet: which of them wins for each setting."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from amelia.config import ActionInputs
from amelia.repo_config import DEFAULT_CONFIG_FILE, RepoConfig

__all__ = ["Toolchain", "toolchain_from"]


@dataclass(frozen=True, kw_only=True)
class Toolchain:
    """What the project asks amelia to run, and where each setting came from."""

    setup: str | None = None
    setup_timeout_minutes: float = 10.0
    setup_origin: str = "setup_script"
    test_command: str | None = None
    test_timeout_minutes: float = 10.0
    test_origin: str = "test_command"


def toolchain_from(
    inputs: ActionInputs,
    *,
    config: RepoConfig | None = None,
    config_file: str = DEFAULT_CONFIG_FILE,
    explicit: Collection[str] = (),
) -> Toolchain:
    """The toolchain settings: an input the workflow set explicitly (see
    `amelia.repo_config.explicit_inputs`) wins over the repository's configuration file
    (`setup`, `setup_timeout_minutes`, `test_command`, `test_timeout_minutes`)."""
    file = config or RepoConfig()

    def chosen(name: str, from_file: object) -> bool:
        """True when the input decides: set explicitly, or the file says nothing."""
        return name in explicit or from_file is None

    def timeout(name: str, from_input: float, from_file: float | None) -> float:
        return from_input if from_file is None or chosen(name, from_file) else from_file

    setup_from_input = chosen("setup_script", file.setup)
    test_from_input = chosen("test_command", file.test_command)
    return Toolchain(
        setup=inputs.setup_script if setup_from_input else file.setup,
        setup_origin="setup_script" if setup_from_input else f"setup in {config_file}",
        setup_timeout_minutes=timeout(
            "setup_timeout_minutes", inputs.setup_timeout_minutes, file.setup_timeout_minutes
        ),
        test_command=inputs.test_command if test_from_input else file.test_command,
        test_origin="test_command" if test_from_input else f"test_command in {config_file}",
        test_timeout_minutes=timeout(
            "test_timeout_minutes", inputs.test_timeout_minutes, file.test_timeout_minutes
        ),
    )
