"""Where a plan is saved and what counts as a plan.

The architect works read-only; our code, not the model, writes the plan file, at a path
rendered from `Profile.plan_path_pattern` and checked to stay inside the repository.
"""

from __future__ import annotations

import re
import string
import unicodedata
from datetime import UTC, date, datetime
from pathlib import Path

from amelia.core.types import Issue
from amelia.errors import PlanPathError
from amelia.git import validate_plan_path

__all__ = [
    "PLAN_PATH_FIELDS",
    "SLUG_MAX_LENGTH",
    "clean_plan_markdown",
    "extract_goal",
    "looks_like_plan",
    "render_plan_path",
    "slugify",
    "write_plan",
]


PLAN_PATH_FIELDS = frozenset({"date", "number", "slug", "id"})
SLUG_MAX_LENGTH = 50

_GOAL_LINE = re.compile(r"^\s*(?:[-*]\s*)?\*\*Goal:?\*\*:?\s*(?P<goal>.+?)\s*$", re.MULTILINE)
_TASK_HEADING = re.compile(r"^#{1,4}\s+(?:Task|Step|Phase)\b", re.MULTILINE | re.IGNORECASE)
_FENCE_OPEN = re.compile(r"^```(?:markdown|md)\s*$", re.IGNORECASE)


def slugify(text: str, *, max_length: int = SLUG_MAX_LENGTH) -> str:
    """Lowercase ASCII words joined by hyphens, cut at a word boundary; never empty."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > max_length:
        cut = slug[:max_length]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug or "plan"


def render_plan_path(pattern: str, issue: Issue, *, today: date | None = None) -> str:
    """Fill `{date}`, `{number}`, `{slug}` and `{id}`; the number falls back to the issue id."""
    fields = {name for _, name, _, _ in string.Formatter().parse(pattern) if name is not None}
    unknown = fields - PLAN_PATH_FIELDS
    if unknown:
        raise PlanPathError(
            f"Unknown field(s) {sorted(unknown)} in plan path pattern {pattern!r}; "
            f"allowed: {sorted(PLAN_PATH_FIELDS)}"
        )
    day = today or datetime.now(UTC).date()
    number = str(issue.number) if issue.number is not None else slugify(issue.id)
    return pattern.format(
        date=day.isoformat(),
        number=number,
        slug=slugify(issue.title),
        id=slugify(issue.id),
    )


def write_plan(repo_dir: Path, relative: str, markdown: str) -> Path:
    """Write the plan file (creating folders) and return its absolute path."""
    target = validate_plan_path(repo_dir, relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(markdown.rstrip() + "\n", encoding="utf-8")
    return target


def extract_goal(markdown: str | None) -> str | None:
    """The text of the first `**Goal:**` line, if any."""
    if not markdown:
        return None
    match = _GOAL_LINE.search(markdown)
    return match.group("goal") if match else None


def looks_like_plan(markdown: str | None) -> bool:
    """A plan has a `**Goal:**` line or a task section; chatter has neither."""
    if not markdown or not markdown.strip():
        return False
    return extract_goal(markdown) is not None or _TASK_HEADING.search(markdown) is not None


def _unfence(text: str) -> str:
    """The body of a ```markdown fence wrapped around the plan, else `text` unchanged."""
    lines = text.splitlines()
    opening = next((i for i, line in enumerate(lines) if _FENCE_OPEN.match(line)), None)
    closing = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip() == "```"), None)
    if opening is None or closing is None or closing <= opening:
        return text
    body = "\n".join(lines[opening + 1 : closing]).strip()
    return body if looks_like_plan(body) else text


def clean_plan_markdown(text: str) -> str:
    """Strip a fence around the plan and any preamble before the plan's title."""
    stripped = _unfence(text.strip())
    lines = stripped.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("# "):
            trimmed = "\n".join(lines[index:]).strip()
            # Only drop the preamble when it holds nothing the plan needs.
            return trimmed if extract_goal(trimmed) == extract_goal(stripped) else stripped
    return stripped
