"""Turning a reviewer's answer into a `ReviewResult`.

The answer is structured output (JSON in the RESULT content) when the driver supports it,
else a fenced ```json block in prose. Anything unparseable means `changes_requested`, with
the reason in the summary, so a confused reviewer can never approve by accident.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, field_validator

from amelia.core.state import SEVERITY_ORDER, ReviewComment, ReviewResult, Severity

__all__ = [
    "ReviewVerdict",
    "VerdictComment",
    "is_success_report",
    "parse_review",
    "to_review_result",
]


_FENCED_JSON = re.compile(r"```(?:json|JSON)?\s*\n(?P<body>\{.*?\})\s*\n```", re.DOTALL)
_SUCCESS_LINE = re.compile(
    r"^\s*(?:[-*]\s*)?(?:"
    r"[✓✔✅☑]"
    r"|(?:no|zero)\s+(?:issues|problems|findings|concerns|errors)(?:\s+(?:found|detected))?\W*$"
    r"|lgtm\W*$"
    r"|looks\s+good(?:\s+to\s+me)?\W*$"
    r"|(?:all\s+)?(?:tests?|checks?|linters?)\s+(?:pass|passed|passes|passing|succeeded|green)\W*$"
    r")",
    re.IGNORECASE,
)


class VerdictComment(BaseModel):
    """One finding, as the reviewer reports it."""

    path: str = Field(description="File path relative to the repository root")
    line: int | None = Field(default=None, description="Line in the NEW version of the file")
    severity: Severity = "minor"
    body: str = Field(description="What is wrong and why it matters")
    suggestion: str | None = Field(default=None, description="Replacement code for the line")

    @field_validator("severity", mode="before")
    @classmethod
    def _lowercase(cls, value: Any) -> Any:
        return value.strip().lower() if isinstance(value, str) else value


class ReviewVerdict(BaseModel):
    """The structured output the reviewer is asked for."""

    verdict: Literal["approved", "changes_requested"]
    severity: Severity = "none"
    summary: str = ""
    comments: list[VerdictComment] = Field(default_factory=list)
    fixed: list[int] = Field(
        default_factory=list,
        description="Ids of the earlier findings listed to you that this change fixes",
    )

    @field_validator("verdict", "severity", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        if isinstance(value, str):
            return value.strip().lower().replace(" ", "_").replace("-", "_")
        return value


def is_success_report(text: str) -> bool:
    """True when every line of `text` only reports that something is fine."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_SUCCESS_LINE.match(line) for line in lines)


def _candidates(content: str) -> list[str]:
    stripped = content.strip()
    found = [stripped]
    found += [match.group("body") for match in reversed(list(_FENCED_JSON.finditer(content)))]
    first, last = stripped.find("{"), stripped.rfind("}")
    if 0 <= first < last:
        found.append(stripped[first : last + 1])
    return found


def _as_verdict(data: Any) -> ReviewVerdict:
    if isinstance(data, dict) and "verdict" not in data and isinstance(data.get("approved"), bool):
        # Older reviewers answered {"approved": bool, "feedback": str}.
        data = {
            "verdict": "approved" if data["approved"] else "changes_requested",
            "summary": str(data.get("feedback", data.get("summary", ""))),
            "comments": data.get("comments", []),
        }
    return ReviewVerdict.model_validate(data)


def to_review_result(verdict: ReviewVerdict) -> ReviewResult:
    """Drop success reports from the findings and keep severity consistent with them."""
    comments = tuple(
        ReviewComment(
            path=comment.path.strip().removeprefix("./"),
            line=comment.line if comment.line and comment.line > 0 else None,
            severity=comment.severity,
            body=comment.body.strip(),
            suggestion=comment.suggestion,
        )
        for comment in verdict.comments
        if comment.body.strip() and not is_success_report(comment.body)
    )
    severities = [verdict.severity, *(comment.severity for comment in comments)]
    severity = max(severities, key=SEVERITY_ORDER.index)
    if verdict.verdict == "approved" and not comments:
        severity = "none"
    return ReviewResult(
        verdict=verdict.verdict,
        severity=severity,
        summary=verdict.summary.strip() or f"Reviewer verdict: {verdict.verdict}",
        comments=comments,
        fixed=tuple(dict.fromkeys(verdict.fixed)),
    )


def parse_review(content: str | None) -> ReviewResult:
    """Parse the reviewer's final answer; never raises."""
    if not content or not content.strip():
        return ReviewResult(
            verdict="changes_requested",
            summary="The reviewer returned an empty answer, so the change is not approved.",
        )
    problems: list[str] = []
    for candidate in _candidates(content):
        try:
            return to_review_result(_as_verdict(json.loads(candidate)))
        except json.JSONDecodeError:
            continue
        except ValidationError as error:
            problems.append(f"{error.error_count()} validation error(s)")
    reason = "; ".join(problems) if problems else "no JSON verdict found"
    excerpt = content.strip()[:300]
    return ReviewResult(
        verdict="changes_requested",
        summary=(
            f"The reviewer's answer held no parseable verdict ({reason}), so the change is "
            f"not approved. Answer began: {excerpt!r}"
        ),
    )
