"""`.dockerignore` matching as Docker does it: last matching pattern wins, `!` re-includes,
and a pattern that matches a directory excludes everything beneath it."""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict


class _Rule(BaseModel):
    model_config = ConfigDict(frozen=True)

    regex: str
    include: bool


class DockerIgnore(BaseModel):
    model_config = ConfigDict(frozen=True)

    rules: tuple[_Rule, ...] = ()

    @classmethod
    def load(cls, context: Path) -> DockerIgnore:
        path = context / ".dockerignore"
        if not path.is_file():
            return cls()
        rules = []
        for raw in path.read_text().splitlines():
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            include = line.startswith("!")
            pattern = line.removeprefix("!").strip()
            cleaned = "/".join(part for part in pattern.split("/") if part not in ("", "."))
            rules.append(_Rule(regex=_translate(cleaned), include=include))
        return cls(rules=tuple(rules))

    def excludes(self, relative: str) -> bool:
        """Whether the context path (posix, relative to the context) stays out of the build."""
        candidates = _self_and_parents(relative)
        excluded = False
        for rule in self.rules:
            if any(re.fullmatch(rule.regex, candidate) for candidate in candidates):
                excluded = not rule.include
        return excluded


def _self_and_parents(relative: str) -> list[str]:
    parts = relative.split("/")
    return ["/".join(parts[: index + 1]) for index in range(len(parts))]


def _translate(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            end = pattern.find("]", i + 1)
            if end < 0:
                out.append(re.escape(char))
                i += 1
            else:
                body = pattern[i + 1 : end].replace("\\", "\\\\")
                if body.startswith("^") or body.startswith("!"):
                    body = "^" + body[1:]
                out.append(f"[{body}]")
                i = end + 1
        elif char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(char))
            i += 1
    return "".join(out)
