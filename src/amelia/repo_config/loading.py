"""Reading `.github/amelia.yml` and the instruction files from one trusted source.

A source is a function from a repository path to the file's bytes (None: no such file):
the GitHub contents API at a trusted ref in the Action, the work tree on the command line.
A missing file means every default; a file that is not valid YAML, not a mapping, or does
not match `RepoConfig` raises `RepoConfigError`, one line naming the file and the key path
(`.github/amelia.yml: agents.reviewer.max_turns: …`), exit code 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from loguru import logger
from pydantic import ValidationError

from amelia.errors import ConfigError
from amelia.repo_config.model import DEFAULT_CONFIG_FILE, RepoConfig

__all__ = [
    "MAX_CONFIG_BYTES",
    "MAX_INSTRUCTIONS_FILES_CHARS",
    "MAX_INSTRUCTIONS_FILE_CHARS",
    "FileReader",
    "RepoConfigError",
    "TrustedFiles",
    "describe_problems",
    "load_trusted_files",
    "parse_repo_config",
    "read_instruction_files",
]

FileReader = Callable[[str], bytes | None]
"""A repository path → the file's bytes at the trusted commit, None when there is none."""

MAX_CONFIG_BYTES = 64 * 1024
"""A configuration file longer than this is refused, before YAML reads it."""

MAX_INSTRUCTIONS_FILE_CHARS = 12_000
"""Each instruction file is cut to this many characters (with a note saying so)."""

MAX_INSTRUCTIONS_FILES_CHARS = 24_000
"""All instruction files together are cut to this many characters."""


class RepoConfigError(ConfigError):
    """The repository's configuration file is invalid: `<file>: <key path>: <problem>`."""

    def __init__(self, source: str, problem: str) -> None:
        super().__init__(f"{source}: {problem}")
        self.source = source
        self.problem = problem


def _key_path(location: Iterable[int | str]) -> str:
    path = ""
    for part in location:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path or "(top level)"


def _shown(value: Any) -> str:
    if isinstance(value, (dict, list, tuple)):
        return ""
    text = repr(value)
    return f" (got {text[:60]}{'…' if len(text) > 60 else ''})"


def describe_problems(error: ValidationError) -> str:
    """`key.path: problem` for every problem, joined by `; `."""
    problems = []
    for problem in error.errors():
        where = _key_path(problem["loc"])
        if problem["type"] == "extra_forbidden":
            problems.append(f"{where}: unknown key (see docs/configuration.md)")
        else:
            problems.append(f"{where}: {problem['msg']}{_shown(problem.get('input'))}")
    return "; ".join(problems)


def _yaml_problem(error: yaml.YAMLError) -> str:
    mark = getattr(error, "problem_mark", None)
    reason = getattr(error, "problem", None) or str(error)
    if mark is None:
        return f"not valid YAML: {reason}"
    return f"line {mark.line + 1}, column {mark.column + 1}: not valid YAML: {reason}"


def _load_yaml(text: str, source: str) -> Any:
    """The YAML document in `text`. Aliases are refused: they let a small file expand to
    any size (the "billion laughs")."""
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            if isinstance(event, yaml.AliasEvent):
                line = event.start_mark.line + 1 if event.start_mark else 0
                raise RepoConfigError(source, f"line {line}: YAML aliases (*name) are not allowed")
        return yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise RepoConfigError(source, _yaml_problem(error)) from None


def parse_repo_config(data: bytes | None, *, source: str = DEFAULT_CONFIG_FILE) -> RepoConfig:
    """The configuration in `data` (None or an empty file: every default)."""
    if data is None:
        return RepoConfig()
    if len(data) > MAX_CONFIG_BYTES:
        raise RepoConfigError(
            source, f"the file is {len(data):,} bytes; at most {MAX_CONFIG_BYTES:,} are read"
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise RepoConfigError(source, "the file is not UTF-8 text") from None
    document = _load_yaml(text, source)
    if document is None:
        return RepoConfig()
    if not isinstance(document, dict):
        raise RepoConfigError(source, "must be a mapping of keys (see docs/configuration.md)")
    try:
        return RepoConfig.model_validate(document)
    except ValidationError as error:
        raise RepoConfigError(source, describe_problems(error)) from None


def _cut(text: str, limit: int, name: str) -> str:
    if len(text) <= limit:
        return text
    logger.warning("{} is {} characters; its first {} are used", name, len(text), limit)
    return text[:limit] + f"\n[… {name} cut here: only its first {limit:,} characters are used]"


@dataclass(frozen=True, kw_only=True)
class TrustedFiles:
    """The configuration and the instruction files, as one trusted commit has them."""

    config: RepoConfig
    config_file: str = DEFAULT_CONFIG_FILE
    where: str = ""
    """Where they were read, for messages: `main`, `the work tree`, …"""
    found: bool = False
    """Whether the configuration file exists (False: every default)."""
    instruction_files: dict[str, str] = field(default_factory=dict)
    """Instruction file → its text (cut to size); files that do not exist are left out."""


def read_instruction_files(
    read: FileReader, names: Iterable[str], *, where: str = "", listed: bool = False
) -> dict[str, str]:
    """Each file of `names` that exists, as text cut to size (`MAX_INSTRUCTIONS_FILE_CHARS`
    each, `MAX_INSTRUCTIONS_FILES_CHARS` together). A missing file is skipped, with a
    warning when the configuration `listed` it."""
    texts: dict[str, str] = {}
    room = MAX_INSTRUCTIONS_FILES_CHARS
    for name in dict.fromkeys(names):
        data = read(name)
        if data is None:
            if listed:
                logger.warning(
                    "instruction file {} not found{}", name, f" on {where}" * bool(where)
                )
            continue
        text = data.decode("utf-8", errors="replace").strip()
        if not text or room <= 0:
            continue
        text = _cut(_cut(text, MAX_INSTRUCTIONS_FILE_CHARS, name), room, name)
        room -= len(text)
        texts[name] = text
    return texts


def load_trusted_files(
    read: FileReader,
    *,
    config_file: str = DEFAULT_CONFIG_FILE,
    where: str = "",
    instruction_files: Callable[[RepoConfig], Iterable[str]],
    stop: Callable[[RepoConfig], bool] = lambda config: False,
) -> TrustedFiles:
    """Read and validate the configuration, then (unless `stop(config)`: nothing will run)
    the instruction files it asks for (`instruction_files(config)`), all through `read`.
    Raises `RepoConfigError`."""
    raw = read(config_file)
    config = parse_repo_config(raw, source=config_file)
    texts: dict[str, str] = {}
    if not stop(config):
        listed = config.instructions_files is not None
        texts = read_instruction_files(read, instruction_files(config), where=where, listed=listed)
    return TrustedFiles(
        config=config,
        config_file=config_file,
        where=where,
        found=raw is not None,
        instruction_files=texts,
    )
