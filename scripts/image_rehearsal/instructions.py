"""Read a Dockerfile into typed instructions and split it into build stages.

Parsing is BuildKit's own parser (the `dockerfile` package wraps it); everything after that
is ours, so every instruction keeps its line number and text for error messages.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from scripts.image_rehearsal.errors import RehearsalError

BASE_IMAGE = "debian:bookworm-slim"


class Instruction(BaseModel):
    """One Dockerfile instruction as written, with where it was written."""

    model_config = ConfigDict(frozen=True)

    keyword: str
    args: tuple[str, ...]
    flags: tuple[str, ...]
    json_form: bool
    line: int
    original: str
    has_heredoc: bool = False

    def describe(self) -> str:
        text = " ".join(self.original.split())
        if len(text) > 160:
            text = text[:157] + "..."
        return f"line {self.line}: {text}"

    def flag_values(self, allowed: Sequence[str]) -> dict[str, str]:
        """The `--name=value` flags of this instruction; any other flag is refused."""
        values: dict[str, str] = {}
        for flag in self.flags:
            name, sep, value = flag.removeprefix("--").partition("=")
            if name not in allowed or not sep:
                raise RehearsalError(
                    f"unsupported flag {flag!r} of {self.keyword} at {self.describe()}"
                )
            values[name] = value
        return values


class Stage(BaseModel):
    """A `FROM … [AS name]` section of the Dockerfile."""

    model_config = ConfigDict(frozen=True)

    index: int
    name: str | None
    base: str
    from_instruction: Instruction
    instructions: tuple[Instruction, ...]

    def label(self) -> str:
        return self.name if self.name is not None else f"stage {self.index}"


def _load_parser() -> Any:
    # The parser is a compiled extension without type information; keep it behind this seam.
    return importlib.import_module("dockerfile")


def parse_dockerfile(path: Path) -> list[Instruction]:
    parser = _load_parser()
    try:
        commands = parser.parse_file(str(path))
    except (parser.GoIOError, parser.GoParseError) as exc:
        raise RehearsalError(f"cannot parse {path}: {exc}") from exc
    return [
        Instruction(
            keyword=command.cmd.upper(),
            args=tuple(command.value),
            flags=tuple(command.flags),
            json_form=bool(command.json),
            line=command.start_line,
            original=command.original,
            has_heredoc=bool(command.heredocs),
        )
        for command in commands
    ]


def split_stages(instructions: Sequence[Instruction]) -> list[Stage]:
    """Group instructions by FROM; a base must be the Debian image or an earlier stage."""
    stages: list[Stage] = []
    current: list[Instruction] = []
    header: Instruction | None = None
    for instruction in instructions:
        if instruction.keyword != "FROM":
            if header is None:
                raise RehearsalError(
                    f"{instruction.keyword} before the first FROM is not supported "
                    f"({instruction.describe()})"
                )
            current.append(instruction)
            continue
        if header is not None:
            stages.append(_make_stage(len(stages), header, current, stages))
        header, current = instruction, []
    if header is None:
        raise RehearsalError("the Dockerfile has no FROM instruction")
    stages.append(_make_stage(len(stages), header, current, stages))
    return stages


def _make_stage(
    index: int, header: Instruction, body: list[Instruction], earlier: list[Stage]
) -> Stage:
    header.flag_values(allowed=())
    args = header.args
    if len(args) == 3 and args[1].upper() == "AS":
        base, name = args[0], args[2].lower()
    elif len(args) == 1:
        base, name = args[0], None
    else:
        raise RehearsalError(f"cannot read FROM at {header.describe()}")
    known = {stage.name for stage in earlier if stage.name is not None}
    if base != BASE_IMAGE and base.lower() not in known:
        raise RehearsalError(
            f"FROM {base} cannot be rehearsed (only {BASE_IMAGE} or an earlier stage) "
            f"at {header.describe()}"
        )
    if name is not None and name in known:
        raise RehearsalError(f"duplicate stage name {name!r} at {header.describe()}")
    return Stage(
        index=index,
        name=name,
        base=base if base == BASE_IMAGE else base.lower(),
        from_instruction=header,
        instructions=tuple(body),
    )


def expand_word(word: str, variables: Mapping[str, str], where: Instruction) -> str:
    """Docker's word processing: quotes, backslash escapes and $VAR / ${VAR} expansion."""
    out: list[str] = []
    i, quote = 0, ""
    while i < len(word):
        char = word[i]
        if quote == "'":
            if char == "'":
                quote = ""
            else:
                out.append(char)
            i += 1
        elif char == "\\" and i + 1 < len(word):
            nxt = word[i + 1]
            if quote == '"' and nxt not in '"\\$':
                out.append(char)
            out.append(nxt)
            i += 2
        elif char in "'\"" and not quote:
            quote = char
            i += 1
        elif char == '"' and quote == '"':
            quote = ""
            i += 1
        elif char == "$":
            value, i = _expand_variable(word, i, variables, where)
            out.append(value)
        else:
            out.append(char)
            i += 1
    if quote:
        raise RehearsalError(f"unterminated quote in {word!r} at {where.describe()}")
    return "".join(out)


def _expand_variable(
    word: str, start: int, variables: Mapping[str, str], where: Instruction
) -> tuple[str, int]:
    i = start + 1
    if i < len(word) and word[i] == "{":
        end = word.find("}", i)
        if end < 0:
            raise RehearsalError(f"unterminated ${{ in {word!r} at {where.describe()}")
        body = word[i + 1 : end]
        for operator in (":-", ":+"):
            name, sep, alternative = body.partition(operator)
            if sep:
                present = variables.get(name, "") != ""
                if operator == ":-":
                    return (variables[name] if present else alternative), end + 1
                return (alternative if present else ""), end + 1
        if not body.replace("_", "a").isalnum():
            raise RehearsalError(f"unsupported substitution ${{{body}}} at {where.describe()}")
        return variables.get(body, ""), end + 1
    j = i
    while j < len(word) and (word[j].isalnum() or word[j] == "_"):
        j += 1
    if j == i:
        return "$", i
    return variables.get(word[i:j], ""), j


def key_value_pairs(
    instruction: Instruction, variables: Mapping[str, str]
) -> list[tuple[str, str]]:
    """The pairs of ENV / LABEL, in both `K=V …` and the legacy `K V` forms."""
    args = instruction.args
    if len(args) % 2:
        raise RehearsalError(f"cannot read {instruction.keyword} at {instruction.describe()}")
    pairs = []
    for index in range(0, len(args), 2):
        name = expand_word(args[index], variables, instruction)
        pairs.append((name, expand_word(args[index + 1], variables, instruction)))
    return pairs
