"""The `INPUT_*` variables a GitHub runner gives amelia's container, read from `action.yml`.

A runner passes every input the action declares, with its default when the workflow does
not set it (`INPUT_TRIGGER_PHRASE=/amelia`, `INPUT_PLAN_DIR=docs/plans`, `INPUT_MODEL=`,
...), so tests build their environment from the file itself: an input added tomorrow is
passed to every test run by default.

Only the block-style mapping `action.yml` uses is read (no YAML library is needed): each
input's `default:` is a plain, single- or double-quoted scalar. The one expression a
default may hold is `${{ github.token }}`, which the caller fills in.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import amelia

__all__ = ["ACTION_YML", "HOST_ACTION_YML", "declared_inputs", "declared_outputs", "runner_inputs"]

ACTION_YML: Final = Path(amelia.__file__).resolve().parents[2] / "action.yml"
"""`action.yml` of the source tree amelia runs from (src/amelia/ -> the repository's root)."""
HOST_ACTION_YML: Final = ACTION_YML.parent / "host" / "action.yml"
"""The composite flavour that runs amelia on the runner itself."""

_GITHUB_TOKEN_EXPRESSION: Final = re.compile(r"^\$\{\{\s*github\.token\s*\}\}$")
_KEY: Final = re.compile(r"^(?P<indent> *)(?P<key>[A-Za-z0-9_-]+):(?:\s+(?P<value>.*))?$")


def declared_inputs(path: Path = ACTION_YML) -> dict[str, str]:
    """Every input `path` declares, with its default ("" when it has none), in order.

    Raises `ValueError` for a file this reader does not understand (no `inputs:`, a
    default written as a block scalar), never guesses."""
    return _declared(path, "inputs")


def declared_outputs(path: Path = ACTION_YML) -> list[str]:
    """The names of the outputs `path` declares, in order."""
    return list(_declared(path, "outputs"))


def _declared(path: Path, section: str) -> dict[str, str]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    try:
        start = lines.index(f"{section}:") + 1
    except ValueError:
        raise ValueError(f"{path} declares no top-level `{section}:`") from None
    inputs: dict[str, str] = {}
    entry_indent: int | None = None
    field_indent: int | None = None
    current: str | None = None
    for line in lines[start:]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        if indent == 0:
            break  # the next top-level key
        found = _KEY.match(line)
        if entry_indent is None:
            entry_indent = indent
        if indent == entry_indent:
            if found is None or found.group("value"):
                raise ValueError(f"{path}: not a name in `{section}:`: {line.strip()!r}")
            current = found.group("key")
            inputs[current] = ""
            field_indent = None
            continue
        if current is None or indent < entry_indent:
            raise ValueError(f"{path}: unexpected line in `{section}:`: {line.strip()!r}")
        if field_indent is None:
            field_indent = indent
        if indent > field_indent or found is None:
            continue  # a continuation of a folded description, or a nested value
        if found.group("key") == "default":
            inputs[current] = _scalar(found.group("value") or "", path, current)
    return inputs


def _scalar(text: str, path: Path, name: str) -> str:
    value = text.strip()
    if value.startswith(("|", ">")):
        raise ValueError(f"{path}: the default of `{name}` is a block scalar; write it on one line")
    unreadable = f"{path}: the default of `{name}` is not a simple quoted string"
    if value.startswith('"'):
        try:
            parsed = json.loads(value)
        except ValueError:
            raise ValueError(unreadable) from None
        if not isinstance(parsed, str):
            raise ValueError(unreadable)
        return parsed
    if value.startswith("'"):
        if len(value) < 2 or not value.endswith("'"):
            raise ValueError(unreadable)
        return value[1:-1].replace("''", "'")
    return re.split(r"\s+#", value, maxsplit=1)[0].strip()


def runner_inputs(
    github_token: str,
    chosen: Mapping[str, str] | None = None,
    *,
    path: Path = ACTION_YML,
) -> dict[str, str]:
    """`INPUT_<NAME>` for every input of `path`, as a runner passes them: the workflow's
    `chosen` values, the declared default for the rest (`${{ github.token }}` is
    `github_token`). A chosen name `path` does not declare is still passed, as a runner
    passes a `with:` entry the action does not know."""
    values: dict[str, str] = {}
    for name, default in declared_inputs(path).items():
        if _GITHUB_TOKEN_EXPRESSION.match(default):
            default = github_token
        elif "${{" in default:
            raise ValueError(f"{path}: cannot evaluate the default of `{name}`: {default}")
        values[name] = default
    values.update(chosen or {})
    return {f"INPUT_{name.upper()}": value for name, value in values.items()}
